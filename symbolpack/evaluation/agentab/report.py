"""The A/B table: runs grouped by episode and arm, ratios of symbolpack to plain, and their spread.

A *round* is one run of each arm of each episode: the k-th run of an
(episode, arm), in the order the runs were set up. The totals are given for
all runs and for each round, so the spread between rounds is visible; per
episode each arm's cost is shown as its lowest and highest run.
"""

from __future__ import annotations

from collections import defaultdict

FIGURES = ("questions_right", "questions", "edits_passed", "edits", "tool_calls", "tool_tokens", "cost")


def _sum(runs: list[dict]) -> dict:
    out = {k: sum(r[k] for r in runs) for k in FIGURES}
    out["runs"] = len(runs)
    out["edits_lost_to_conflict"] = sum(r.get("edits_lost_to_conflict", 0) for r in runs)
    out["confused"] = sum(1 for r in runs if r["confused"])
    out["feedback_missing"] = sum(1 for r in runs if r["confused"] is None)
    out["calls"] = defaultdict(int)
    out["tokens"] = defaultdict(int)
    for r in runs:
        for k, v in r["calls"].items():
            out["calls"][k] += v
        for k, v in r["tokens"].items():
            out["tokens"][k] += v
    out["calls"], out["tokens"] = dict(out["calls"]), dict(out["tokens"])
    return out


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if a and b else None


def ab_report(graded: list[dict]) -> dict:
    """One summary per setting (the tools the agents had) and per symbolpack arm (as
    Claude Code's hooks answer, or over MCP): runs of different settings are never
    compared with each other; each symbolpack arm is compared with the plain runs of
    its setting, under the arm name `symbolpack`."""
    out: dict[str, dict] = {}
    for setting in sorted({r.get("setting", "all tools") for r in graded}):
        mine = [r for r in graded if r.get("setting", "all tools") == setting]
        plain = [r for r in mine if r["arm"] == "plain"]
        treated = sorted({r["arm"] for r in mine} - {"plain"}) or ["symbolpack"]
        for arm in treated:
            label = setting if arm == "symbolpack" else f"{setting}; symbolpack over MCP (read_file, known ids)"
            out[label] = ab_summary(plain + [{**r, "arm": "symbolpack"} for r in mine if r["arm"] == arm])
    return out


def format_report(report: dict) -> str:
    return "\n".join(f"== the agents had: {setting}\n" + format_ab(summary) for setting, summary in report.items())


def ab_summary(graded: list[dict]) -> dict:
    """Figures per arm, per episode and per round, and the symbolpack/plain ratios."""
    by_key: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in graded:
        by_key[(r["episode"], r["arm"])].append(r)
    rounds: dict[int, list[dict]] = defaultdict(list)
    for runs in by_key.values():
        for k, r in enumerate(runs, 1):
            rounds[k].append(r)

    def compare(runs: list[dict]) -> dict:
        """Totals per arm; ratios of per-run means, summed over the episodes both arms ran
        (each episode weighs the same whatever its number of runs)."""
        arms = {arm: _sum([r for r in runs if r["arm"] == arm]) for arm in ("plain", "symbolpack")}
        means: dict[str, dict[str, float]] = {"plain": defaultdict(float), "symbolpack": defaultdict(float)}
        for name in {r["episode"] for r in runs}:
            mine = {arm: [r for r in runs if r["episode"] == name and r["arm"] == arm] for arm in means}
            if not (mine["plain"] and mine["symbolpack"]):
                continue
            for arm, group in mine.items():
                for k in ("tool_calls", "tool_tokens", "cost"):
                    means[arm][k] += sum(r[k] for r in group) / len(group)
        ratios = {k: _ratio(means["symbolpack"][k], means["plain"][k]) for k in ("tool_calls", "tool_tokens", "cost")}
        return {"arms": arms, "ratios": ratios}

    episodes = {}
    for name in sorted({r["episode"] for r in graded}):
        runs = [r for r in graded if r["episode"] == name]
        entry = compare(runs)
        entry["cost_spread"] = {arm: [min(r["cost"] for r in runs if r["arm"] == arm),
                                      max(r["cost"] for r in runs if r["arm"] == arm)]
                                for arm in ("plain", "symbolpack") if any(r["arm"] == arm for r in runs)}
        episodes[name] = entry
    plain = [r for r in graded if r["arm"] == "plain" and "repeat_free_cost" in r]
    ceiling = _ratio(sum(r["repeat_free_cost"] for r in plain), sum(r["cost"] for r in plain)) if plain else None
    return {"all": compare(graded), "episodes": episodes, "repeat_free_ceiling": ceiling,
            "rounds": {k: compare(v) for k, v in sorted(rounds.items())},
            "feedback": [{"episode": r["episode"], "arm": r["arm"], "run": r["run"], "text": r["feedback"]}
                         for r in graded]}


def format_ab(summary: dict) -> str:
    lines = []

    def table(title: str, entry: dict) -> None:
        p, s = entry["arms"]["plain"], entry["arms"]["symbolpack"]
        ratio = entry["ratios"]
        lines.append(f"{title}")
        lines.append(f"  {'':<34}{'plain':>12}{'symbolpack':>12}{'ratio':>8}")
        rows = [("runs", p["runs"], s["runs"], None),
                ("questions right", f"{p['questions_right']}/{p['questions']}",
                 f"{s['questions_right']}/{s['questions']}", None),
                ("edit checks passed", f"{p['edits_passed']}/{p['edits']}", f"{s['edits_passed']}/{s['edits']}", None),
                ("  edits a conflicting push undid", p["edits_lost_to_conflict"], s["edits_lost_to_conflict"], None),
                ("tokens received (read grep ls edit)", p["tool_tokens"], s["tool_tokens"], ratio["tool_tokens"]),
                ("tool calls (read grep ls edit)", p["tool_calls"], s["tool_calls"], ratio["tool_calls"]),
                ("cost (tokens + 0.1 x context per call)", round(p["cost"]), round(s["cost"]), ratio["cost"]),
                ("runs reporting confusion", p["confused"], s["confused"], None)]
        for name, a, b, r in rows:
            lines.append(f"  {name:<34}{a!s:>12}{b!s:>12}{'' if r is None else f'{r:.2f}x':>8}")
        for kind in ("read", "grep", "ls", "edit"):
            lines.append(f"    {kind + ' calls / tokens':<32}{p['calls'].get(kind, 0):>5} /{p['tokens'].get(kind, 0):>6}"
                         f"{s['calls'].get(kind, 0):>5} /{s['tokens'].get(kind, 0):>6}")

    def x(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}x"

    table("all runs", summary["all"])
    for k, entry in summary["rounds"].items():
        r = entry["ratios"]
        lines.append(f"round {k}: cost {x(r['cost'])}, calls {x(r['tool_calls'])}, tokens {x(r['tool_tokens'])}")
    if summary.get("repeat_free_ceiling") is not None:
        lines.append(f"ceiling of any re-read policy: the plain runs' cost were every line they had already received "
                     f"free: {x(summary['repeat_free_ceiling'])}")
    lines.append("per episode: cost ratio (each arm's lowest-highest run cost), calls ratio, tokens ratio")
    def span(values: list[float] | None) -> str:
        return "-" if values is None else f"{values[0]:.0f}-{values[1]:.0f}"

    for name, entry in summary["episodes"].items():
        sp, r = entry["cost_spread"], entry["ratios"]
        lines.append(f"  {name:<22}cost {x(r['cost'])} (plain {span(sp.get('plain'))} | symbolpack "
                     f"{span(sp.get('symbolpack'))}), calls {x(r['tool_calls'])}, tokens {x(r['tool_tokens'])}")
    lines.append("feedback:")
    for f in summary["feedback"]:
        lines.append(f"  [{f['arm']}] {f['episode']}: {f['text']}")
    return "\n".join(lines) + "\n"
