"""What the calls cost: the kinds of call, the round-trip charge, and the report's summary.

Every read of an `EvalSession` (`harness.py`) is one of the categories below, and
every `context` pack is priced as reading its files whole. `charge` adds
ROUND_TRIP_TOKENS for a drill-in the policy's agent would need to make;
`summarize` turns a session into the report's data (totals, savings per category
and kind of call, charged totals, latency, per-turn and cumulative tokens).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from ..base.tokens import counter_name

if TYPE_CHECKING:
    from typing import Protocol

    from .records import PackRecord, ReadRecord

    class RecordedSession(Protocol):
        """What `summarize` reads of a session (`harness.EvalSession`)."""

        records: list[ReadRecord]
        packs: list[PackRecord]
        other_failures: list[str]
        fallbacks: dict[str, int]

        def failures(self) -> list[str]: ...


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
    those lines (for symbolpack: the oracle's copy held them before the answer). It sends whole files on
    first reads, so it never has to open a hidden body; a drill-in into lines it holds is a
    call its agent would not make, which costs it nothing (not even the marker it is
    otherwise priced at). Other reads (first reads, re-reads, ranges) are calls every
    policy makes, and are not charged.
    """
    if record.category != DRILL:
        return 0, 0, record.tokens, record.reference
    # the same rule for both policies: a drill-in into lines the agent already holds is a
    # call that agent would not make (symbolpack answers it with the lines all the same:
    # a real model asks again for what it holds only when it wants to see it)
    ours = (0, 0) if record.mode == "unchanged" or record.held else (1, record.tokens + ROUND_TRIP_TOKENS)
    theirs = (0, 0) if record.reference_held else (1, record.reference + ROUND_TRIP_TOKENS)
    return ours[0], theirs[0], ours[1], theirs[1]


def _costed_read(r: ReadRecord) -> _Costed:
    trips, reference_trips, charged, reference_charged = charge(r)
    return _Costed(r.turn, r.category, r.native, r.reference, r.tokens, trips, reference_trips, charged,
                   reference_charged)


def _ratio(a: float, b: float) -> float:
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


def summarize(session: RecordedSession, turns: Sequence[str], **extra: Any) -> dict:
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
    by_category: dict[str, dict[str, Any]] = {}
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
        row: dict[str, Any] = {"label": label, "reads": len(rs), "context_packs": sum(c.category == CONTEXT for c in cs),
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
    by_kind: dict[str, dict[str, Any]] = {}
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
    example = getattr(session, "example", None)
    if example is not None:
        charges["example"] = example
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
