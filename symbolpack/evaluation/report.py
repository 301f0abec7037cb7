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
    head = f"{'turn':<{width}}  {'reads':>5}  {'native':>9}  {'diff-only':>9}  {'symbolpack':>10}  {'hits':>4}  {'drill':>5}  oracle"
    out = [f"symbolpack eval: {summary.get('repo', '')}  (tokens: {summary['counter']})", "", head, "-" * len(head)]
    for t in turns:
        label = t["label"] if len(t["label"]) <= width else t["label"][: width - 1] + "…"
        out.append(f"{label:<{width}}  {t['reads']:>5}  {t['native']:>9,}  {t['reference']:>9,}  "
                   f"{t['symbolpack']:>10,}  {t['unchanged']:>4}  {t['drill_ins']:>5}  {_verdict(t['failures'])}")
    tok = summary["tokens"]
    out.append("-" * len(head))
    out.append(f"{'total':<{width}}  {summary['reads']:>5}  {tok['native']:>9,}  {tok['reference']:>9,}  "
               f"{tok['symbolpack']:>10,}  {summary['modes'].get('unchanged', 0):>4}  {summary['drill_ins']:>5}  "
               f"{_verdict(summary['failures'])}")
    return "\n".join(out + ["", format_kinds(summary), "", format_headline(summary)])


KIND_LABELS = (("first", "first reads"), ("reread", "re-reads"), ("drill", "drill-ins"), ("range", "ranges"),
               ("packs", "packs"))


def charge_legend(summary: dict) -> str:
    """What the charged columns mean (the same words in the terminal and the HTML report)."""
    trip = summary.get("round_trip_tokens", 100)
    return (f"charged = tokens + {trip} per round trip (a tool call costs the agent a turn). Each policy pays "
            f"one for a drill-in only where its agent would make that call, i.e. where it does not already hold "
            f"those lines (a drill-in into lines it holds costs it nothing, though symbolpack answers it with the "
            f"lines: a real model re-asks only to see them); "
            f"the diff-only reference sends whole files on first reads, so it never has to open a hidden body. First reads, re-reads, "
            f"ranges and packs are calls every policy makes: not charged. Native is plain reads, uncharged. "
            f"packs = context packs (diff-context is reported apart).")


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
    head = (f"{'kind':<11}  {'calls':>5}  {'native':>9}  {'diff-only':>9}  {'symbolpack':>10}  "
            f"{'trips d/s':>9}  {'charged d':>9}  {'charged s':>9}")
    out = [head, "-" * len(head)]
    rows = _kind_rows(summary)
    for i, (label, k) in enumerate(rows):
        if i == len(rows) - 1:
            out.append("-" * len(head))
        trips = f"{k['round_trips']['reference']}/{k['round_trips']['symbolpack']}"
        out.append(f"{label:<11}  {k['calls']:>5}  {k['native']:>9,}  {k['reference']:>9,}  {k['symbolpack']:>10,}  "
                   f"{trips:>9}  {k['charged']['reference']:>9,}  {k['charged']['symbolpack']:>9,}")
    out += textwrap.wrap("(d = diff-only reference, s = symbolpack) " + charge_legend(summary), width=len(head),
                         break_on_hyphens=False)
    return "\n".join(out)


def format_charged(summary: dict) -> str:
    """The one "charged" line: charged totals, their ratio, first-read share, drill-ins per file."""
    charged, trips = summary["charged_tokens"], summary["round_trips"]
    line = (f"charged ({summary.get('round_trip_tokens', 100)} tokens per round trip): symbolpack "
            f"{charged['symbolpack']:,} ({trips['symbolpack']} round trips), diff-only {charged['reference']:,} "
            f"({trips['reference']} round trips): {summary['charged_ratio']:.2f}x the diff-only reference; "
            f"first reads {_pct(summary['first_read_share'])} of a plain read")
    if "drill_ins_per_edited_file" in summary:
        line += (f"; {summary['drill_ins_per_edited_file']:.2f} drill-ins per edited file "
                 f"({summary['drill_ins']} over {summary['edited_files']})")
    return line


def format_headline(summary: dict) -> str:
    """The numbers that matter, one line each: savings, hit rate, latency, oracle verdict."""
    out: list[str] = []
    points = summary["points_ahead_of_reference"]
    out.append(f"savings vs native full reads: symbolpack {_pct(summary['savings'])}, "
               f"diff-only {_pct(summary['reference_savings'])} "
               f"(symbolpack {abs(points):.1f} points {'ahead' if points >= 0 else 'behind'})")
    if "charged_tokens" in summary:
        out.append(format_charged(summary))
    out.append(f"first reads: symbolpack {_pct(summary['first_read_savings'])} "
               f"(diff-only {_pct(summary['reference_first_read_savings'])}); "
               f"re-reads: symbolpack {_pct(summary['reread_savings'])} "
               f"(diff-only {_pct(summary['reference_reread_savings'])})")
    drill = summary["by_category"]["drill"]
    out.append(f"hit rate {_pct(summary['hit_rate'])}; drill-ins {summary['drill_ins']} "
               f"({drill['symbolpack']:,} tokens, diff-only {drill['reference']:,}); "
               f"latency p50 {summary['p50_ms']:.1f} ms, p95 {summary['p95_ms']:.1f} ms per read "
               f"(in-process engine calls)")
    modes = ", ".join(f"{k} {v}" for k, v in summary["modes"].items())
    out.append(f"modes: {modes}")
    fallbacks = summary.get("plain_fallbacks") or {}
    if fallbacks:
        out.append("plain reads where the copy held something (fail open): "
                   + ", ".join(f"{k} {v}" for k, v in fallbacks.items()))
    if "context" in summary:
        out.append(f"context turns: {summary['context']}")
    if "diff_context" in summary:
        out.append(f"diff-context: {summary['diff_context']}")
    for kind, p in summary.get("packs", {}).items():
        priced = (f"its files read whole {p['native']:,}, diff-only {p['reference']:,}" if kind == "context" else
                  f"changed files read whole {p['native']:,}, plain diffs {p['reference']:,}")
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
