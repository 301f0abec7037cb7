"""Grading one run: right answers, passed edit checks, calls, tokens and what they cost.

The answer rule is strict enough that a guess does not pass and loose enough
that a right answer in a sentence does: both sides are lower-cased, quotes and
backticks dropped, whitespace collapsed, a final period stripped. An answer is
right when it equals an accepted string, or holds one of at least three
characters as a whole token, or, for a numeric accepted string, when the
numbers in it are exactly that one ("line 143", not "142 or 143"); and it holds
no `reject` string as a whole token.

Cost is what an agent pays at an API that caches its prompt: every call sends
the whole context again, read from cache at a tenth of the price, and then
receives the call's output. So a call's cost is its output tokens plus 0.1 x
the context before it (the prompt, every earlier output, and 100 tokens of the
model's own text per earlier call). A call saved is worth a tenth of the
context; a token received early is paid again by every later call. The
`feedback` command (asked after the task) is not counted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .episode import check_passes, load_episode

CACHE_READ_PRICE = 0.1
MODEL_TEXT_PER_CALL = 100
TOOL_COMMANDS = ("read", "grep", "ls", "edit")
COUNTED_COMMANDS = ("next", "read", "grep", "ls", "edit", "answer")
_QUOTES = "'\"`\u2018\u2019\u201c\u201d"


def normalise(text: str) -> str:
    text = text.lower()
    for q in _QUOTES:
        text = text.replace(q, "")
    return re.sub(r"\s+", " ", text).strip().rstrip(".").strip()


def _has_token(hay: str, needle: str) -> bool:
    return re.search(r"(?<![A-Za-z0-9_])" + re.escape(needle) + r"(?![A-Za-z0-9_])", hay) is not None


def answer_is_right(given: str | None, question: dict) -> bool:
    if given is None:
        return False
    g = normalise(given)
    if any(_has_token(g, normalise(r)) for r in question.get("reject", []) if normalise(r)):
        return False
    for accepted in question["accepted"]:
        a = normalise(accepted)
        if not a:
            continue
        if g == a:
            return True
        if re.fullmatch(r"-?\d+", a):
            if set(re.findall(r"(?<![A-Za-z0-9_.-])-?\d+(?![A-Za-z0-9_.])", g)) == {a}:
                return True
        elif len(a) >= 3 and _has_token(g, a):
            return True
    return False


def cost_of(output_tokens: list[int], prompt_tokens: int) -> float:
    """Σ over calls of (output + CACHE_READ_PRICE × context before the call)."""
    context, total = prompt_tokens, 0.0
    for out in output_tokens:
        total += out + CACHE_READ_PRICE * context
        context += out + MODEL_TEXT_PER_CALL
    return total


def setting_of(state: dict) -> str:
    """The tools the agent had: "all tools", or "without grep" (an agent that can only read)."""
    without = state.get("without") or []
    return "without " + ", ".join(without) if without else "all tools"


_ROW = re.compile(r"^ *(\d+)\t(.*)$", re.M)
MARKER_TOKENS = 15  # what a marker standing for lines already received would cost


def repeat_free_outputs(log: list[dict]) -> list[int]:
    """Each counted call's output tokens as they would be if every line a read shows that
    the agent already received, with the same text at the same number, were free (a
    marker in its place): the most any re-read policy could save on this run."""
    held: dict[str, dict[int, str]] = {}
    out = []
    for r in log:
        if r["command"] not in COUNTED_COMMANDS:
            continue
        tokens = r["output_tokens"]
        if r["command"] == "read" and r.get("args"):
            seen = held.setdefault(r["args"][0], {})
            rows = [(int(n), text) for n, text in _ROW.findall(r["output"])]
            repeated = sum(1 for n, text in rows if seen.get(n) == text)
            if repeated:
                tokens = min(tokens, round(tokens * (1 - repeated / len(rows))) + MARKER_TOKENS)
            seen.update(rows)
        out.append(tokens)
    return out


def read_log(rundir: Path) -> list[dict]:
    path = rundir / "log.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def grade_run(rundir: str | Path) -> dict:
    """One run's figures (JSON-ready)."""
    rundir = Path(rundir)
    state = json.loads((rundir / "state.json").read_text(encoding="utf-8"))
    ep = load_episode(state["episode"])
    log = read_log(rundir)
    questions = [{"id": q["id"], "step": step, "kind": q["kind"], "given": state["answers"].get(q["id"]),
                  "right": answer_is_right(state["answers"].get(q["id"]), q)} for step, q in ep.questions()]
    conflicts = sorted({c for a in state["applies"] for c in a.get("conflicts", [])})
    edits = []
    for step, edit in ep.edits():
        path = rundir / "repo" / edit["file"]
        text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        passed = check_passes(edit["check"], text, edit["file"], rundir / "repo")
        # a later push that conflicted with the agent's edit won its hunk: the lab lost
        # the edit, not the agent (reported apart, in both arms)
        edits.append({"id": edit["id"], "step": step, "file": edit["file"], "passed": passed,
                      "lost_to_conflict": not passed and edit["file"] in conflicts})
    counted = [r for r in log if r["command"] in COUNTED_COMMANDS]
    calls: dict[str, int] = {}
    tokens: dict[str, int] = {}
    for r in counted:
        calls[r["command"]] = calls.get(r["command"], 0) + 1
        tokens[r["command"]] = tokens.get(r["command"], 0) + r["output_tokens"]
    return {
        "episode": ep.name, "arm": state["arm"], "run": str(rundir), "setting": setting_of(state),
        "finished": state["step"] > len(ep.steps),
        "questions_right": sum(q["right"] for q in questions), "questions": len(questions),
        "edits_passed": sum(e["passed"] for e in edits), "edits": len(edits),
        "edits_lost_to_conflict": sum(e["lost_to_conflict"] for e in edits),
        "tool_calls": sum(calls.get(c, 0) for c in TOOL_COMMANDS),
        "tool_tokens": sum(tokens.get(c, 0) for c in TOOL_COMMANDS),
        "calls": calls, "tokens": tokens,
        "cost": round(cost_of([r["output_tokens"] for r in counted], state["prompt_tokens"]), 1),
        "repeat_free_cost": round(cost_of(repeat_free_outputs(log), state["prompt_tokens"]), 1),
        "refused_edits": state["refused_edits"],
        "conflicts": conflicts,
        "feedback": state.get("feedback"),
        "confused": is_confused(state.get("feedback")),
        "tokenizer": state.get("tokenizer"),
        "detail": {"questions": questions, "edits": edits},
    }


_NO_CONFUSION = re.compile(r"^\W*(none|nothing|no)\b(?![-\s]*(,\s*)?but\b)", re.I)


def is_confused(feedback: str | None) -> bool | None:
    """Whether the agent reported confusion with the read output: None when it gave no
    feedback; False when its answer opens with "none" (or "nothing", "no") -- what the
    prompt asks for when nothing confused it -- and not "no, but ..."."""
    if feedback is None:
        return None
    return not _NO_CONFUSION.match(feedback.strip())
