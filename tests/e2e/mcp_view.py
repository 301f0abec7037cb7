"""The judge of an MCP client's context: what the model holds of each file, rebuilt
from the `read_file` calls and results one request carries, and whether the answer
that request delivers leans only on that.

It reads only the text the model was given, in the grammar docs/PROTOCOL.md and the
MCP tools define (`   NN<TAB>text` rows, `[SKELETON]`, `... A-B elided`,
`[UNCHANGED]`, `[CHANGED]`, `[DELTA]` with `... A-B unchanged (were C-D)`, the
closing `[answer ID; relies on ...]` line), and imports nothing from symbolpack: a
judge that shared the engine's parser would grade the engine by the engine.

Walking the request's results in order, each file's view is, per line, the text the
latest answer covering that line gave the model (`HIDDEN` for an elided line). The
last result (the answer this request delivers) is judged against the file as it was
when the answer was made: every row it shows is that text; every line it vouches
for (a whole-file `[UNCHANGED]`, the shown lines of a `[CHANGED]`, a delta's
unchanged runs) is held in the view with exactly that text; every id it relies on
is an answer earlier in the same request; an answer that vouches for anything names
what it relies on.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

HIDDEN = object()
_ROW = re.compile(r"^ *(\d+)\t(.*)$", re.S)
_ELIDED = re.compile(r"^\s*\.\.\. (\d+)-(\d+) elided")
_UNCHANGED_RUN = re.compile(r"^\.\.\. (\d+)-(\d+) unchanged(, elided bodies still elided)?(?: \(were (\d+)-(\d+)\))?")
_ID_LINE = re.compile(r"^\[answer (\w+)(?:: [^;\]]*)?(?:; relies on ([\w, ]+))?(?:; not needed: [^\]]*)?\]")


@dataclass
class Answer:
    call: dict  # the read_file arguments
    text: str  # the result as the model got it, the client's wrapper removed
    ident: str | None
    relies: list[str]

    @property
    def whole(self) -> bool:
        return not any(self.call.get(k) for k in ("offset", "limit", "symbol"))


@dataclass
class View:
    lines: dict[int, object] = field(default_factory=dict)  # line -> text or HIDDEN
    known: bool = False


def answer_of(call: dict, text: str) -> Answer:
    """A result as the model reads it. Codex prefixes `Wall time: ...\\nOutput:`."""
    if text.startswith("Wall time:") and "\nOutput:" in text:
        text = text.split("\nOutput:", 1)[1]
        text = text[1:] if text.startswith("\n") else text
    ident, relies = None, []
    last = text.rstrip("\n").rsplit("\n", 1)[-1]
    m = _ID_LINE.match(last)
    if m:
        ident = m.group(1)
        relies = [r.strip() for r in (m.group(2) or "").split(",") if r.strip()]
        text = text.rstrip("\n").rpartition("\n")[0] if "\n" in text.rstrip("\n") else ""
    return Answer(call, text, ident, relies)


def answers_in(items: list[dict], tool: str = "read_file") -> list[Answer]:
    """The `read_file` results of an OpenAI Responses request's `input`, in order."""
    calls = {i["call_id"]: i for i in items if i.get("type") == "function_call" and i.get("name") == tool}
    out = []
    for item in items:
        if item.get("type") == "function_call_output" and item.get("call_id") in calls:
            raw = item.get("output")
            text = raw if isinstance(raw, str) else "".join(p.get("text", "") for p in raw or [] if isinstance(p, dict))
            out.append(answer_of(json.loads(calls[item["call_id"]]["arguments"]), text))
    return out


_UNTRUSTED_OPEN, _UNTRUSTED_CLOSE = "<untrusted_context>\n", "\n</untrusted_context>"


def gemini_output(response: dict) -> str:
    """The text of a Gemini `functionResponse.response` as the model reads it, without the
    `<untrusted_context>` wrapper Gemini CLI puts around an MCP tool's output (it escapes a
    closing tag inside; undone here)."""
    out = response.get("output", response.get("content")) if isinstance(response, dict) else response
    text = out if isinstance(out, str) else json.dumps(out)
    if text.startswith(_UNTRUSTED_OPEN) and text.endswith(_UNTRUSTED_CLOSE):
        text = text[len(_UNTRUSTED_OPEN):-len(_UNTRUSTED_CLOSE)]
        text = text.replace("&lt;/untrusted_context&gt;", "</untrusted_context>")
    return text


def gemini_results(contents: list[dict], tool: str = "mcp_symbolpack_read_file") -> list[tuple[str, dict, str]]:
    """(response id, call arguments, text) of each *tool* result in a Gemini API request's
    `contents`, in order; a `functionResponse` is paired with the `functionCall` of its id
    (Gemini CLI names an MCP tool `mcp_<server>_<tool>`)."""
    parts = [p for c in contents if isinstance(c, dict) for p in c.get("parts") or [] if isinstance(p, dict)]
    calls = {p["functionCall"].get("id"): p["functionCall"] for p in parts
             if isinstance(p.get("functionCall"), dict) and p["functionCall"].get("name") == tool}
    out = []
    for p in parts:
        r = p.get("functionResponse")
        if isinstance(r, dict) and r.get("name") == tool and r.get("id") in calls:
            out.append((r["id"], calls[r["id"]].get("args") or {}, gemini_output(r.get("response") or {})))
    return out


def answers_in_contents(contents: list[dict], tool: str = "mcp_symbolpack_read_file") -> list[Answer]:
    """The `read_file` results of a Gemini API request's `contents`, in order."""
    return [answer_of(args, text) for _, args, text in gemini_results(contents, tool)]


def _rows(text: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(2) for line in text.split("\n") if (m := _ROW.match(line))}


def apply(view: View, answer: Answer, current: list[str] | None, problems: list[str]) -> View:
    """*view* after *answer*; what it vouches for checked against *current* (None: not judged)."""
    text, what = answer.text, f"answer {answer.ident}"
    first = text.split("\n", 1)[0]
    rows = _rows(text)
    if current is not None:
        for n, line in rows.items():
            if n > len(current) or current[n - 1] != line:
                problems.append(f"{what}: row {n} shows {line!r}, the file has "
                                f"{current[n - 1] if n <= len(current) else None!r}")

    def vouch(n: int, now: int) -> None:
        held = view.lines.get(n)
        if held is None:
            problems.append(f"{what}: vouches for line {n}, which the context does not hold")
        elif held is not HIDDEN and current is not None and (now > len(current) or current[now - 1] != held):
            problems.append(f"{what}: vouches for line {n} as {held!r}; line {now} is "
                            f"{current[now - 1] if now <= len(current) else None!r}")

    if first.startswith("[UNCHANGED]"):
        if not view.known:
            problems.append(f"{what}: [UNCHANGED] with no earlier answer of the file in the context")
        for n in list(view.lines):
            vouch(n, n)
        return view
    if first.startswith("[CHANGED]"):
        if not view.known:
            problems.append(f"{what}: [CHANGED] with no earlier answer of the file in the context")
        for n, held in list(view.lines.items()):
            if held is not HIDDEN:
                vouch(n, n)
        return view
    if first.startswith("[DELTA]"):
        new = View(known=True)
        for line in text.split("\n")[1:]:
            m = _UNCHANGED_RUN.match(line.strip())
            if m:
                a, b = int(m.group(1)), int(m.group(2))
                c = int(m.group(4)) if m.group(4) else a
                for k in range(b - a + 1):
                    vouch(c + k, a + k)
                    if (c + k) in view.lines:
                        new.lines[a + k] = view.lines[c + k]
                continue
            e = _ELIDED.match(line)
            if e:
                for n in range(int(e.group(1)), int(e.group(2)) + 1):
                    new.lines[n] = HIDDEN
        new.lines.update(rows)
        return new
    if first.startswith("[DIFF]"):
        problems.append(f"{what}: a [DIFF] this judge does not replay")
        return View()
    if first.startswith("[SKELETON]") or answer.whole:
        new = View(known=True)
        for line in text.split("\n"):
            e = _ELIDED.match(line)
            if e:
                for n in range(int(e.group(1)), int(e.group(2)) + 1):
                    new.lines[n] = HIDDEN
        new.lines.update(rows)
        return new
    out = View(dict(view.lines), view.known or bool(rows))
    out.lines.update(rows)
    return out


def judge(answers: list[Answer], current: list[str]) -> list[str]:
    """Problems with the last of *answers* (the one this request delivers), given the
    ones before it in the same request (replayed for their effect only)."""
    problems: list[str] = []
    *earlier, last = answers
    path = last.call.get("path")
    view = View()
    for a in earlier:
        if a.call.get("path") == path:
            view = apply(view, a, None, [])
    given = {a.ident for a in earlier}
    for r in last.relies:
        if r not in given:
            problems.append(f"answer {last.ident} relies on {r}, not in this request")
    vouches = last.text.startswith(("[UNCHANGED]", "[CHANGED]", "[DELTA]", "[DIFF]"))
    if vouches and not last.relies:
        problems.append(f"answer {last.ident} vouches for earlier lines but names nothing it relies on")
    apply(view, last, current, problems)
    return problems
