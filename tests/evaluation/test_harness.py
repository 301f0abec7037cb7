"""The eval harness: reference policies, the scripted scenario, the oracle catching a broken
engine, the reports and the `eval` command (default, embedded scenario)."""

from __future__ import annotations

import json

import pytest

from symbolpack.evaluation import harness
from symbolpack.evaluation.command import main
from symbolpack.evaluation.harness import DiffOnlyPolicy, native_cost, percentile, selected_counter
from symbolpack.evaluation.report import format_table, render_html
from symbolpack.evaluation.scenario import run_scenario
from symbolpack.api.operations import read_file
from symbolpack.base.tokens import count_tokens, counter_name
from symbolpack.base.workspace import SymbolpackError

REQUIRED_KEYS = ("failures", "reads", "savings", "reference_savings", "first_read_savings", "reread_savings",
                 "drill_ins", "p50_ms", "p95_ms", "counter", "failure_messages")


def scenario(engine=None) -> dict:
    with selected_counter("estimate"):
        return run_scenario(engine=engine)


# --------------------------------------------------------------------------- reference policies

LINES = [f"line {n} = value_{n} + {n}" for n in range(1, 101)]


def test_diff_only_policy_first_read_is_full_then_marker_then_diff():
    policy = DiffOnlyPolicy()
    full = native_cost(LINES, None)
    assert policy.cost("a.txt", LINES, None) == full
    marker = policy.cost("a.txt", LINES, None)
    assert 0 < marker < 40
    edited = list(LINES)
    edited[50] = "line 51 changed"
    small = policy.cost("a.txt", edited, None)
    assert marker < small < full / 4


def test_diff_only_policy_reads_whole_file_when_the_change_is_large_or_scattered():
    policy = DiffOnlyPolicy()
    policy.cost("a.txt", LINES, None)
    rewritten = [f"other {n}" for n in range(1, 101)]  # 100 % changed
    assert policy.cost("a.txt", rewritten, None) == native_cost(rewritten, None)
    scattered = list(rewritten)
    for i in range(0, 100, 10):  # 10 hunks > 6
        scattered[i] += " x"
    assert policy.cost("a.txt", scattered, None) == native_cost(scattered, None)


def test_diff_only_policy_answers_a_range_with_its_lines_and_knows_when_it_held_them():
    """The reference answers a range as a real model needs it, with the lines (a marker
    there was distrusted), and says whether its agent held them (a drill-in it would not
    have made is not charged)."""
    policy = DiffOnlyPolicy()
    assert policy.cost("a.txt", LINES, (10, 20)) == native_cost(LINES, (10, 20)) and not policy.last_held
    assert policy.cost("a.txt", LINES, (10, 20)) == native_cost(LINES, (10, 20)) and policy.last_held
    policy.cost("b.txt", LINES, None)
    assert policy.cost("b.txt", LINES, (40, 60)) == native_cost(LINES, (40, 60)) and policy.last_held
    changed = list(LINES)
    changed[44] = "new"
    assert policy.cost("b.txt", changed, (40, 60)) == native_cost(changed, (40, 60)) and not policy.last_held


def test_percentile_nearest_rank():
    assert percentile([], 50) == 0.0
    assert percentile([5.0, 1.0, 3.0], 50) == 3.0
    assert percentile(list(range(1, 101)), 95) == 95


def test_selected_counter_restores_and_bpe_fails_clearly_when_missing(monkeypatch):
    before = counter_name()
    with selected_counter("estimate") as name:
        assert name == "estimate" == counter_name()
    assert counter_name() == before
    monkeypatch.setattr(harness, "_bpe_counter", lambda: None)
    with pytest.raises(SymbolpackError, match="tiktoken"):
        with selected_counter("bpe"):
            pass
    with selected_counter("auto") as name:
        assert name == "estimate"
    assert counter_name() == before


# --------------------------------------------------------------------------- the scripted scenario

def test_scenario_holds_and_its_totals_are_deterministic():
    first, second = scenario(), scenario()
    assert first["failures"] == 0, first["failure_messages"]
    for key in ("tokens", "reads", "modes", "by_category", "drill_ins", "hit_rate"):
        assert first[key] == second[key], key
    assert [t["cumulative"] for t in first["turns"]] == [t["cumulative"] for t in second["turns"]]
    for key in REQUIRED_KEYS:
        assert key in first
    assert first["counter"] == "estimate"
    tokens = first["tokens"]
    assert tokens["symbolpack"] < tokens["native"] and tokens["reference"] < tokens["native"]
    # the script exercises every kind of answer
    assert {"skeleton", "unchanged", "range", "diff", "full"} <= set(first["modes"])
    assert first["drill_ins"] >= 4 and first["by_category"]["first"]["reads"] == 5
    assert len(first["turns"]) >= 8 and first["seconds"] < 30


def broken(kind: str):
    """Engines that lie in the ways a read cache can: a stale 'unchanged', a wrong line, a
    diff that drops a hunk."""

    def engine(ws, path, session_id, **kwargs):
        response = dict(read_file(ws, path, session_id, **kwargs).response)
        if kind == "stale-unchanged" and response["mode"] in ("delta", "diff") and response["scope"] is None:
            response.update(mode="unchanged", text="[UNCHANGED] trust me", segments=None)
        elif kind == "wrong-line" and response["mode"] in ("full", "skeleton"):
            response["text"] = response["text"].replace("\tdef ", "\tdef  ", 1).replace("\texport ", "\texport  ", 1)
        elif kind == "dropped-hunk" and response["mode"] == "diff":
            head, sep, rest = response["text"].partition("\n@@")
            response["text"] = head  # no hunks at all: the agent keeps its old lines
        return response

    return engine


@pytest.mark.parametrize("kind", ["stale-unchanged", "wrong-line", "dropped-hunk"])
def test_oracle_catches_a_broken_engine(kind):
    result = scenario(engine=broken(kind))
    assert result["failures"] > 0, kind
    assert result["failure_messages"]
    assert any(t["failures"] for t in result["turns"])


def test_engine_exceptions_are_failures_not_crashes():
    def engine(ws, path, session_id, **kwargs):
        if kwargs.get("symbol"):
            raise RuntimeError("boom")
        return read_file(ws, path, session_id, **kwargs).response

    result = scenario(engine=engine)
    assert result["failures"] > 0
    assert any("boom" in m for m in result["failure_messages"])


# --------------------------------------------------------------------------- reports and the command

def test_reports_render_every_turn_and_a_self_contained_chart():
    result = scenario()
    table = format_table(result)
    assert "total" in table and "diff-only" in table and "oracle: every response held" in table
    for turn in result["turns"]:
        assert turn["label"][:20] in table
    page = render_html(result)
    assert page.count("<polyline") == 3 and "<svg" in page
    assert "<script" not in page and "src=" not in page and "href=" not in page


def test_eval_command_default_json(capsys, tmp_path):
    html = tmp_path / "report.html"
    code = main(["--json", "--counter", "estimate", "--html", str(html)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    for key in REQUIRED_KEYS:
        assert key in out
    assert out["failures"] == 0 and out["counter"] == "estimate"
    assert html.read_text().startswith("<!doctype html>")


def test_eval_command_table_and_usage_errors(capsys):
    assert main(["--counter", "estimate"]) == 0
    out = capsys.readouterr().out
    assert "tokens: plain reads " in out and "How to read this." not in out
    assert main(["--counter", "estimate", "--explain"]) == 0
    explained = capsys.readouterr().out
    assert explained.index("tokens: plain reads ") < explained.index("How to read this.")  # after the table
    assert "\nHow to read this. Every read an agent made is answered three ways" in explained
    # one answer as the agent got it: the delta after the teammate's edit, smaller than the file
    assert 'What the agent saw: one re-read of src/auth/tokens.py (turn "edit, re-request"): ' in explained
    assert "    [DELTA] src/auth/tokens.py: changed since your last whole read of it" in explained
    assert '        raise TokenError(f"expired at {token.expires_at}")' in explained
    assert main(["--commits", "5"]) == 1
    assert "--commits and --end need --repo" in capsys.readouterr().err


def test_context_turns_use_a_context_pack_when_the_engine_has_one(monkeypatch):
    """With a `context_pack()` in the engine, context turns ask it; the PackJudge checks the pack."""
    import sys
    import types

    calls = []

    def context_pack(ws, entry, session_id=None):
        calls.append(entry)
        syms = [s for rel in ("src/auth/tokens.py", "src/auth/middleware.ts") for s in ws.symbols_of(rel, (ws.root / rel).read_bytes())]
        sym = next(s for s in syms if s.name == entry.split(".")[-1])
        lines = (ws.root / sym.path).read_text().split("\n")
        code = "\n".join(lines[sym.lines[0] - 1:sym.lines[1]])
        text = f"[CONTEXT] {entry}\n{code}"
        return {"v": 1, "slices": [{"id": sym.id, "path": sym.path, "kind": sym.kind, "signature": sym.signature,
                                    "lines": list(sym.lines), "code": code, "etag": sym.etag}],
                "unchanged": [], "diffs": [], "text": text}

    import symbolpack.api

    fake = types.SimpleNamespace(context_pack=context_pack)
    monkeypatch.setitem(sys.modules, "symbolpack.api.context", fake)
    monkeypatch.setattr(symbolpack.api, "context", fake, raising=False)
    result = scenario()
    assert calls and result["failures"] == 0, result["failure_messages"]
    assert result["packs"]["context"]["calls"] == len(calls)
    assert result["context"] == "context packs"
    assert count_tokens("x") == 1


def test_run_benchmarks_finds_ratios_and_their_targets():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "evals" / "run_benchmarks.py"
    spec = importlib.util.spec_from_file_location("run_benchmarks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    report = {"max_ratio": 3.0, "ok": True, "entry_points": {"hook": {"ratio": 2.5, "median_ms": 40}},
              "ratios": {"cold_over_baseline": 2.0}, "targets": {"cold_over_baseline": 4.0},
              "entries_0": {"skeleton_over_python": 7.0}}
    found = {r["name"]: (r["value"], r["target"]) for r in module.ratios(report)}
    assert found == {"entry_points.hook.ratio": (2.5, 3.0), "ratios.cold_over_baseline": (2.0, 4.0),
                     "entries_0.skeleton_over_python": (7.0, None)}
    assert module.flags(report) == [("ok", True)]
    assert module.parse_report('warming up\n{"ratio": 1.5}') == {"ratio": 1.5}
    assert {p.name for p in module.find_benchmarks()} >= {"bench_structure.py"}


# --------------------------------------------------------------------------- round trips and charged totals

CHARGE_KEYS = ("round_trip_tokens", "round_trips", "charged_tokens", "charged_ratio", "first_read_share", "by_kind")


class _Recorded:
    """A session reduced to what `summarize` reads: given records, no engine."""

    def __init__(self, records, packs, edited_files=None):
        self.records, self.packs, self.edited_files = records, packs, edited_files
        self.other_failures, self.fallbacks = [], {}

    def failures(self):
        return []


def test_charge_arithmetic_on_a_tiny_session():
    """Every drill-in costs symbolpack 100 tokens more; the reference pays only for the
    drill-in into lines it does not hold, and nothing for the one it would not make."""
    from symbolpack.evaluation.harness import DRILL, FIRST, RANGE, REREAD, PackRecord, ReadRecord, summarize

    def read(turn, path, category, tokens, native, reference, held=False):
        return ReadRecord(turn, path, category, "-", "x", tokens, native, reference, 1.0, [], held)

    records = [read("t1", "a.py", FIRST, 40, 100, 100),
               read("t1", "a.py", DRILL, 30, 30, 10, held=True),  # the reference holds a.py whole
               read("t1", "b.cfg", DRILL, 20, 20, 20),  # the reference holds nothing of b.cfg
               read("t2", "a.py", REREAD, 5, 100, 8),
               read("t2", "a.py", RANGE, 12, 12, 12)]
    packs = [PackRecord("t2", "context", 50, 200, 150, 1.0, 0),
             PackRecord("t2", "diff-context", 70, 300, 60, 1.0, 0)]  # not in the totals
    s = summarize(_Recorded(records, packs, edited_files=2), ["t1", "t2"])
    assert s["tokens"] == {"native": 462, "reference": 300, "symbolpack": 157}
    assert s["round_trip_tokens"] == 100
    assert s["round_trips"] == {"reference": 1, "symbolpack": 2}
    # symbolpack 40 + (30+100) + (20+100) + 5 + 12 + 50; reference 100 + 0 + (20+100) + 8 + 12 + 150
    assert s["charged_tokens"] == {"reference": 390, "symbolpack": 357}
    assert s["charged_ratio"] == 0.9154  # 357 / 390
    assert s["first_read_share"] == 0.4  # 40 / 100
    assert s["edited_files"] == 2 and s["drill_ins_per_edited_file"] == 1.0
    drill = s["by_kind"]["drill"]
    assert drill == {"calls": 2, "native": 50, "reference": 30, "symbolpack": 50,
                     "round_trips": {"reference": 1, "symbolpack": 2},
                     "charged": {"reference": 120, "symbolpack": 250}}
    assert s["by_kind"]["packs"]["calls"] == 1 and s["by_kind"]["packs"]["charged"] == {"reference": 150,
                                                                                         "symbolpack": 50}
    assert s["by_kind"]["first"]["charged"] == {"reference": 100, "symbolpack": 40}
    assert [t["charged"] for t in s["turns"]] == [{"reference": 220, "symbolpack": 290},
                                                  {"reference": 170, "symbolpack": 67}]
    assert "drill_ins_per_edited_file" not in summarize(_Recorded(records, packs), ["t1", "t2"])
    table = format_table(s)
    assert "cost with 100 tokens per extra call: symbolpack 357 (2 extra calls), diff-only 390 " \
           "(1): 0.92x" in table
    assert "1.00 drill-ins per edited file" in table
    for label in ("first reads", "re-reads", "drill-ins", "ranges", "packs"):
        assert label in table
    assert "Per kind of call" in render_html(s)


def test_diff_only_policy_says_when_it_already_held_the_lines():
    policy = DiffOnlyPolicy()
    policy.cost("a.txt", LINES, None)
    assert not policy.last_held
    policy.cost("a.txt", LINES, (10, 20))
    assert policy.last_held  # a drill-in the reference's agent would not make
    changed = list(LINES)
    changed[14] = "new"
    policy.cost("a.txt", changed, (10, 20))
    assert not policy.last_held
    policy.cost("a.txt", changed, None)  # a diff: not held
    assert not policy.last_held
    policy.cost("a.txt", changed, None)
    assert policy.last_held


def check_charge_keys(out: dict) -> None:
    """The charge keys of `tldrs eval --json`, with their types and their consistency."""
    for key in CHARGE_KEYS:
        assert key in out, key
    for key in ("round_trips", "charged_tokens"):
        assert set(out[key]) == {"reference", "symbolpack"}
        assert all(type(v) is int for v in out[key].values())
    assert isinstance(out["charged_ratio"], float) and isinstance(out["first_read_share"], float)
    assert set(out["by_kind"]) == {"first", "reread", "drill", "range", "packs"}
    for kind in out["by_kind"].values():
        assert all(type(kind[k]) is int for k in ("calls", "native", "reference", "symbolpack"))
        assert all(type(v) is int for part in ("round_trips", "charged") for v in kind[part].values())
    trip = out["round_trip_tokens"]
    # a drill-in answered [UNCHANGED] is a call the agent would not make: no trip, no tokens
    drill = out["by_kind"]["drill"]
    assert out["round_trips"]["symbolpack"] <= out["drill_ins"] == drill["calls"]
    assert drill["charged"]["symbolpack"] <= drill["symbolpack"] + trip * out["round_trips"]["symbolpack"]
    for policy in ("reference", "symbolpack"):
        assert sum(k["charged"][policy] for k in out["by_kind"].values()) == out["charged_tokens"][policy]
        assert sum(k["round_trips"][policy] for k in out["by_kind"].values()) == out["round_trips"][policy]
    for policy in ("native", "reference", "symbolpack"):
        assert sum(k[policy] for k in out["by_kind"].values()) == out["tokens"][policy]
    assert out["charged_ratio"] == round(out["charged_tokens"]["symbolpack"] / out["charged_tokens"]["reference"], 4)
    first = out["by_kind"]["first"]
    assert out["first_read_share"] == round(first["symbolpack"] / first["native"], 4)


def test_eval_command_default_json_has_the_charges(capsys):
    assert main(["--json", "--counter", "estimate"]) == 0
    out = json.loads(capsys.readouterr().out)
    check_charge_keys(out)
    # seven drill-ins: four into bodies a skeleton hid (validate_token and refresh_token after
    # the first read, RefreshHandler and TokenStore.revoke_all later), three into code the
    # agent already holds (a drill-in after the delta, authenticate after a pack showed it,
    # refresh_token again): not charged
    assert out["drill_ins"] == 7 and out["round_trips"]["symbolpack"] == 4
    assert out["charged_ratio"] < 1  # the embedded session is one where symbolpack pays off
    assert out["example"]["tokens"] < out["example"]["plain_tokens"]
    assert "drill_ins_per_edited_file" not in out  # a replay number


def _many_functions(n: int, body: int) -> str:
    return "".join(f"def f{k}(x):\n" + "".join(f"    y{i} = x * {i} + {k}\n" for i in range(body))
                   + "    return x\n\n\n" for k in range(n))


def test_drill_plan_merges_close_spans_and_keeps_a_lone_one_by_symbol(make_repo):
    """Hidden bodies a few shown lines apart are one range read; edits in every other
    body of a long file are one range; a single edit stays one call by symbol."""
    from symbolpack.evaluation.harness import EvalSession

    root = make_repo({"close.py": _many_functions(6, 12), "wide.py": _many_functions(30, 8)})
    with selected_counter("estimate"):
        session = EvalSession(root, session_id="plan")
        try:
            close = session.read("close.py")
            assert close["mode"] == "skeleton"
            f1, f2 = [(s["start"], s["end"]) for s in close["segments"] if s["kind"] == "elided"][1:3]
            assert session.drill_into("close.py", [f1[0] + 2, f2[0] + 2]) == 1  # one range over both bodies
            assert [r.request for r in session.records[1:]] == [f"lines {f1[0]}-{f2[1]}"]
            wide = session.read("wide.py")
            bodies = [(s["start"], s["end"]) for s in wide["segments"] if s["kind"] == "elided"]
            assert session.drill_into("wide.py", [a + 1 for a, _ in bodies[::2]]) == 1  # every other body
            assert session.records[-1].request == f"lines {bodies[0][0]}-{bodies[-2][1]}"
            assert session.drill_into("close.py", [close["total_lines"] - 3]) == 1  # the last body, alone
            assert session.records[-1].request == "symbol close.py:python:f5"
            assert session.failures() == []
        finally:
            session.close()


def test_a_drill_in_into_lines_the_agent_holds_is_not_charged_whatever_it_answers():
    """symbolpack answers every drill-in with its lines; one into lines its agent already
    held (the oracle's copy says so) is a call that agent would not make: no round trip."""
    from symbolpack.evaluation.harness import DRILL, ReadRecord
    from symbolpack.evaluation.summary import charge

    held = ReadRecord("t", "a.py", DRILL, "-", "range", 30, 30, 30, 1.0, [], False, True)
    fresh = ReadRecord("t", "a.py", DRILL, "-", "range", 30, 30, 30, 1.0, [], False, False)
    assert charge(held) == (0, 1, 0, 130)
    assert charge(fresh) == (1, 1, 130, 130)


def test_the_readme_states_the_embedded_session_s_figures():
    """README's "The eval" quotes what `tldrs eval` (no arguments) reports: kept true here."""
    import re
    from pathlib import Path

    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    found = re.search(r"It sends (\d+) % fewer tokens than plain reads \(the diff-only reference: (\d+) %\) "
                      r"and costs ([\d.]+)x the reference", readme)
    assert found, "README no longer states the embedded session's figures"
    result = scenario()
    assert int(found.group(1)) == round(result["savings"] * 100)
    assert int(found.group(2)) == round(result["reference_savings"] * 100)
    assert float(found.group(3)) == round(result["charged_ratio"], 2)
