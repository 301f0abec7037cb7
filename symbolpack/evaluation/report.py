"""Rendering an eval summary: a terminal table and a self-contained HTML report.

The HTML report draws its chart as a small inline SVG written by hand: it must
open offline, from a CI artifact or an e-mail attachment, years later, so it
loads no script, font or stylesheet from anywhere, and a plotting library
(matplotlib, a JS chart kit) would be a heavy dependency for three polylines.
The JSON form is the summary itself (`harness.summarize`).
"""

from __future__ import annotations

import html
import textwrap
from pathlib import Path

SERIES = (("native", "native full reads", "#9e9e9e"), ("reference", "diff-only reference", "#e69f00"),
          ("symbolpack", "symbolpack", "#0072b2"))


def _pct(x: float) -> str:
    return f"{x * 100:.1f} %"


def _verdict(n: int) -> str:
    return "ok" if n == 0 else f"{n} FAIL"


def format_table(summary: dict) -> str:
    """The per-turn table, the totals, and the headline numbers, for a terminal."""
    turns = summary["turns"]
    width = max([len("total"), *(len(t["label"]) for t in turns)])
    width = min(width, 60)
    head = (f"{'turn':<{width}}  {'reads':>5}  {'plain':>9}  {'diff-only':>9}  {'symbolpack':>10}  {'unchanged':>9}  "
            f"{'drill-ins':>9}  oracle")
    out = [f"symbolpack eval: {summary.get('repo', '')}  (tokens: {summary['counter']})", "", head, "-" * len(head)]
    for t in turns:
        label = t["label"] if len(t["label"]) <= width else t["label"][: width - 1] + "…"
        out.append(f"{label:<{width}}  {t['reads']:>5}  {t['native']:>9,}  {t['reference']:>9,}  "
                   f"{t['symbolpack']:>10,}  {t['unchanged']:>9}  {t['drill_ins']:>9}  {_verdict(t['failures'])}")
    tok = summary["tokens"]
    out.append("-" * len(head))
    out.append(f"{'total':<{width}}  {summary['reads']:>5}  {tok['native']:>9,}  {tok['reference']:>9,}  "
               f"{tok['symbolpack']:>10,}  {summary['modes'].get('unchanged', 0):>9}  {summary['drill_ins']:>9}  "
               f"{_verdict(summary['failures'])}")
    return "\n".join(out + ["", format_kinds(summary), "", format_headline(summary)])


# the protocol's modes in a reader's words (`answers:` line)
MODE_WORDS = {"full": "whole file", "range": "lines asked for (drill-ins and ranges)", "skeleton": "skeleton",
              "unchanged": "[UNCHANGED]", "delta": "delta", "diff": "diff"}
# why a re-read was answered with the plain text (`ReadOutcome.fallback`)
FALLBACK_WORDS = {
    "cost": "where a delta or diff would have cost more than the file",
    "gate": "where the change was too large for a diff and no parser handles the file",
    "pending": "where an earlier answer may not have reached the agent",
    "truncated": "where the file shrank to a fraction of what the agent holds",
    "baseline": "where the version the agent holds was no longer stored",
    "mixed": "where the agent's copy mixes versions no diff starts from",
    "forced": "asked for in full",
}

KIND_LABELS = (("first", "first reads"), ("reread", "re-reads"), ("drill", "drill-ins"), ("range", "ranges"),
               ("packs", "packs"))


def charge_legend(summary: dict) -> str:
    """What the cost columns mean, in one sentence (the reading guide says more)."""
    trip = summary.get("round_trip_tokens", 100)
    return (f"cost = tokens + {trip} for each extra call: a call an agent makes only because an answer did not "
            f"show it lines it needed (a drill-in into a hidden body). Plain = every read a plain read; packs = "
            f"context packs. --explain says how to read this report.")


def reading_guide(summary: dict) -> str:
    """A paragraph on how to read the report (`tldrs eval --explain`, and the HTML report)."""
    trip = summary.get("round_trip_tokens", 100)
    return (
        "How to read this. Every read an agent made is answered three ways and the tokens each answer takes are "
        "counted: plain (the file, or the lines asked for, every time), diff-only (a reference read cache that "
        "sends an unchanged marker or a unified diff when the agent already has the file, and the whole file "
        "otherwise) and symbolpack (what symbolpack actually sent: skeletons of large files, drill-ins, "
        "[UNCHANGED] markers, deltas by symbol, diffs for files no parser handles). 'unchanged' counts answers "
        "that were an [UNCHANGED] marker; 'drill-ins' counts reads of one symbol or of hidden lines. A skeleton "
        "hides long bodies, so an agent that later needs one makes an extra call: the cost columns charge "
        f"{trip} tokens for each such call (a call re-sends the agent's context), for each policy only where its "
        "agent would have had to make it (the diff-only reference sends whole files, so it never does). The "
        "oracle column is an independent judge that rebuilds what the agent holds from the answers alone and "
        "checks every line an answer shows or vouches for against the file: it must say ok on every turn.")


def _kind_rows(summary: dict) -> list[tuple[str, dict]]:
    kinds = summary.get("by_kind") or {}
    rows = [(label, kinds[key]) for key, label in KIND_LABELS if key in kinds]
    total = {"calls": sum(k["calls"] for _, k in rows), "native": sum(k["native"] for _, k in rows),
             "reference": sum(k["reference"] for _, k in rows), "symbolpack": sum(k["symbolpack"] for _, k in rows),
             "round_trips": summary.get("round_trips", {"reference": 0, "symbolpack": 0}),
             "charged": summary.get("charged_tokens", {"reference": 0, "symbolpack": 0})}
    return rows + [("total", total)]


def format_kinds(summary: dict) -> str:
    """Per kind of call: tokens under each policy, round trips, and the charged tokens."""
    if "by_kind" not in summary:
        return ""
    head = (f"{'kind':<11}  {'calls':>5}  {'plain':>9}  {'diff-only':>9}  {'symbolpack':>10}  "
            f"{'extra calls':>11}  {'cost diff-only':>14}  {'cost symbolpack':>15}")
    out = [head, "-" * len(head)]
    rows = _kind_rows(summary)
    for i, (label, k) in enumerate(rows):
        if i == len(rows) - 1:
            out.append("-" * len(head))
        trips = f"{k['round_trips']['reference']} / {k['round_trips']['symbolpack']}"
        out.append(f"{label:<11}  {k['calls']:>5}  {k['native']:>9,}  {k['reference']:>9,}  {k['symbolpack']:>10,}  "
                   f"{trips:>11}  {k['charged']['reference']:>14,}  {k['charged']['symbolpack']:>15,}")
    out += textwrap.wrap("(extra calls: diff-only / symbolpack) " + charge_legend(summary), width=len(head),
                         break_on_hyphens=False)
    return "\n".join(out)


def format_charged(summary: dict) -> str:
    """The one "charged" line: charged totals, their ratio, first-read share, drill-ins per file."""
    charged, trips = summary["charged_tokens"], summary["round_trips"]
    line = (f"cost with {summary.get('round_trip_tokens', 100)} tokens per extra call: symbolpack "
            f"{charged['symbolpack']:,} ({trips['symbolpack']} extra calls), diff-only {charged['reference']:,} "
            f"({trips['reference']}): {summary['charged_ratio']:.2f}x the diff-only reference; "
            f"a first read is {_pct(summary['first_read_share'])} of a plain read")
    if "drill_ins_per_edited_file" in summary:
        line += (f"; {summary['drill_ins_per_edited_file']:.2f} drill-ins per edited file "
                 f"({summary['drill_ins']} over {summary['edited_files']})")
    return line


def format_headline(summary: dict) -> str:
    """The numbers that matter, one line each: savings, hit rate, latency, oracle verdict."""
    out: list[str] = []
    points = summary["points_ahead_of_reference"]
    tok = summary["tokens"]
    out.append(f"tokens: plain reads {tok['native']:,}; symbolpack {tok['symbolpack']:,} "
               f"({_pct(summary['savings'])} saved); diff-only {tok['reference']:,} "
               f"({_pct(summary['reference_savings'])} saved; symbolpack {abs(points):.1f} points "
               f"{'ahead' if points >= 0 else 'behind'})")
    if "charged_tokens" in summary:
        out.append(format_charged(summary))
    out.append(f"saved on first reads: symbolpack {_pct(summary['first_read_savings'])} "
               f"(diff-only {_pct(summary['reference_first_read_savings'])}); "
               f"on re-reads: symbolpack {_pct(summary['reread_savings'])} "
               f"(diff-only {_pct(summary['reference_reread_savings'])})")
    drill = summary["by_category"]["drill"]
    out.append(f"[UNCHANGED] answers {_pct(summary['hit_rate'])} of reads; drill-ins {summary['drill_ins']} "
               f"({drill['symbolpack']:,} tokens, diff-only {drill['reference']:,}); "
               f"latency p50 {summary['p50_ms']:.1f} ms, p95 {summary['p95_ms']:.1f} ms per read "
               f"(in-process engine calls)")
    modes = ", ".join(f"{MODE_WORDS.get(k, k)} {v}" for k, v in summary["modes"].items())
    out.append(f"answers: {modes}")
    fallbacks = summary.get("plain_fallbacks") or {}
    if fallbacks:
        out.append("re-reads answered with the plain text (failing open): "
                   + "; ".join(f"{v} {FALLBACK_WORDS.get(k, k)}" for k, v in fallbacks.items()))
    if "context" in summary:
        out.append(f"context turns: {summary['context']}")
    if "diff_context" in summary:
        out.append(f"diff-context: {summary['diff_context']}")
    for kind, p in summary.get("packs", {}).items():
        priced = (f"its files read whole {p['native']:,}, diff-only {p['reference']:,}" if kind == "context" else
                  f"changed files read whole {p['native']:,}, plain diffs {p['reference']:,}"
                  + ("; a pack also shows the changed code's callers and callees, which a diff does not"
                     if p["tokens"] > p["reference"] else ""))
        out.append(f"  {kind}: {p['calls']} calls, {p['tokens']:,} tokens ({priced}), "
                   f"{p['unchanged']} [UNCHANGED] stubs, {p.get('summarized', 0)} files summarized, p50 {p['p50_ms']:.1f} ms, p95 {p['p95_ms']:.1f} ms, "
                   f"oracle {_verdict(p['failures'])}")
    if summary["failures"]:
        out.append(f"oracle: {summary['failures']} failures; first ones:")
        out.extend(f"  {m}" for m in summary["failure_messages"])
    else:
        out.append("oracle: every response held (0 failures)")
    if "seconds" in summary:
        out.append(f"finished in {summary['seconds']:.1f} s")
    return "\n".join(out) + "\n"


def format_explain(summary: dict, width: int = 96, lines: int = 30) -> str:
    """The reading guide, then one answer the agent got (a delta), as it saw it."""
    out = textwrap.wrap(reading_guide(summary), width=width, break_on_hyphens=False)
    example = summary.get("example")
    if example:
        shown = example["text"].split("\n")
        more = len(shown) - lines
        out += ["", f"What the agent saw: one re-read of {example['path']} (turn \"{example['turn']}\"): "
                    f"{example['tokens']:,} tokens where a plain read sends {example['plain_tokens']:,}.", ""]
        out += ["    " + line for line in shown[:lines]]
        if more > 0:
            out.append(f"    ({more} more lines)")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- HTML

def cumulative_chart_svg(turns: list[dict], width: int = 760, height: int = 320) -> str:
    """Cumulative tokens per turn for each policy, as an inline SVG line chart."""
    left, right, top, bottom = 70, 20, 20, 40
    pw, ph = width - left - right, height - top - bottom
    peak = max([1, *(t["cumulative"][k] for t in turns for k, _, _ in SERIES)])
    n = len(turns)

    def x(i: int) -> float:
        return left + (pw * i / n if n else 0)

    def y(v: float) -> float:
        return top + ph - ph * v / peak

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="cumulative tokens per turn">',
             f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#ccc"/>']
    for k in range(5):
        v = peak * k / 4
        parts.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{left + pw}" y2="{y(v):.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" font-size="11" text-anchor="end">{_compact(v)}</text>')
    parts.append(f'<text x="{left + pw / 2}" y="{height - 8}" font-size="12" text-anchor="middle">turn</text>')
    for i in range(0, n + 1, max(1, n // 10)):
        parts.append(f'<text x="{x(i):.1f}" y="{top + ph + 16}" font-size="11" text-anchor="middle">{i}</text>')
    for key, name, color in SERIES:
        points = [(x(0), y(0))] + [(x(i + 1), y(t["cumulative"][key])) for i, t in enumerate(turns)]
        path = " ".join(f"{a:.1f},{b:.1f}" for a, b in points)
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{path}">'
                     f'<title>{html.escape(name)}</title></polyline>')
    for j, (key, name, color) in enumerate(SERIES):
        ly = top + 14 + 16 * j
        parts.append(f'<line x1="{left + 10}" y1="{ly - 4}" x2="{left + 30}" y2="{ly - 4}" stroke="{color}" stroke-width="3"/>')
        last = turns[-1]["cumulative"][key] if turns else 0
        parts.append(f'<text x="{left + 36}" y="{ly}" font-size="12">{html.escape(name)} ({last:,})</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _compact(v: float) -> str:
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if v >= size:
            return f"{v / size:.3g}{suffix}"
    return f"{v:.0f}"


def render_html(summary: dict) -> str:
    esc = html.escape
    tok = summary["tokens"]
    rows = "\n".join(
        f"<tr><td>{i + 1}</td><td>{esc(t['label'])}</td><td>{t['reads']}</td><td>{t['native']:,}</td>"
        f"<td>{t['reference']:,}</td><td>{t['symbolpack']:,}</td><td>{t['unchanged']}</td><td>{t['drill_ins']}</td>"
        f"<td class=\"{'ok' if not t['failures'] else 'bad'}\">{_verdict(t['failures'])}</td></tr>"
        for i, t in enumerate(summary["turns"]))
    headline = esc(format_headline(summary))
    failures = "".join(f"<li><code>{esc(m)}</code></li>" for m in summary["failure_messages"])
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>symbolpack eval</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; }} td, th {{ padding: 2px 8px; border-bottom: 1px solid #eee; text-align: right; }}
td:nth-child(2) {{ text-align: left; }} .ok {{ color: #2e7d32; }} .bad {{ color: #c62828; font-weight: bold; }}
pre {{ background: #f7f7f7; padding: 1em; overflow-x: auto; }}
</style></head><body>
<h1>symbolpack eval</h1>
<p>{esc(str(summary.get('repo', '')))} &middot; {summary['reads']} reads &middot; tokens counted with {esc(summary['counter'])}
&middot; oracle: <span class="{'ok' if not summary['failures'] else 'bad'}">{_verdict(summary['failures'])}</span></p>
<p>Tokens: native full reads {tok['native']:,}; diff-only reference {tok['reference']:,}; symbolpack {tok['symbolpack']:,}.</p>
<h2>Cumulative tokens per turn</h2>
{cumulative_chart_svg(summary['turns'])}
<h2>Summary</h2>
<pre>{headline}</pre>
<h2>How to read this</h2>
<pre>{esc(format_explain(summary))}</pre>
{_kinds_html(summary)}
<h2>Turns</h2>
<table><tr><th>#</th><th>turn</th><th>reads</th><th>native</th><th>diff-only</th><th>symbolpack</th><th>hits</th><th>drill-ins</th><th>oracle</th></tr>
{rows}
</table>
{f'<h2>Oracle failures</h2><ul>{failures}</ul>' if failures else ''}
</body></html>
"""


def _kinds_html(summary: dict) -> str:
    if "by_kind" not in summary:
        return ""
    esc = html.escape
    rows = "\n".join(
        f"<tr><td>{esc(label)}</td><td>{k['calls']}</td><td>{k['native']:,}</td><td>{k['reference']:,}</td>"
        f"<td>{k['symbolpack']:,}</td><td>{k['round_trips']['reference']}</td><td>{k['round_trips']['symbolpack']}</td>"
        f"<td>{k['charged']['reference']:,}</td><td>{k['charged']['symbolpack']:,}</td></tr>"
        for label, k in _kind_rows(summary))
    return f"""<h2>Per kind of call</h2>
<table><tr><th>kind</th><th>calls</th><th>native</th><th>diff-only</th><th>symbolpack</th>
<th>round trips diff-only</th><th>round trips symbolpack</th><th>charged diff-only</th><th>charged symbolpack</th></tr>
{rows}
</table>
<p>{esc(charge_legend(summary))}</p>
"""


def write_html(summary: dict, path: Path) -> None:
    Path(path).write_text(render_html(summary), encoding="utf-8")
