"""How an answer tells the agent to see more, in the words of the front end it goes to.

An answer names what it hides and how to show it: a skeleton's `... A-B elided:`
markers, a pack's "not shown" lines, a bad range's error. The agent can act only on
the words of the tool it is calling: a model calling MCP's `read_file` has no
`--offset` flag, Claude Code's Read has `offset`/`limit` and no `symbol`, pi's
`read` has `offset`/`limit`/`symbol`, OpenCode's `read` `filePath`/`offset`/`limit`, Qwen Code's `read_file` a 0-based `offset`. So every such phrase is rendered here, once
per front end, and the core asks for the phrase instead of writing a CLI flag.

A front end is chosen by name (`front=` in `api.operations.read_file`, the packs,
`tldrs read --front`); the CLI's own words are the default.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_SHELL_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")


def shell_word(text: str) -> str:
    """*text* as one POSIX shell word (shlex.quote's rule; shlex itself is not
    imported on the read path): a hint the agent pastes must run as shown."""
    if text and all(c in _SHELL_SAFE for c in text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


class Hints:
    """The CLI's words: flags of `tldrs read`, shell commands."""

    name = "cli"
    has_symbol = True  # a marker can name a symbol to read (else it names lines only)
    delta_since = "since your last whole read of it"  # what a delta's "lines then" counts
    delta_edits = ""  # said of edits the model made that symbolpack did not see
    delta_were = "you have it at C-D"  # what a delta's "(were C-D)" numbers count
    # the model names the answers it holds itself (MCP's `known`): a whole read after parts
    # is then a delta over them (it asked what changed); where the host's record names them
    # (hooks), a model that asked for the file read `unchanged` holes as text withheld
    model_names_its_copy = False
    diff_base = ""  # what a unified diff's "your copy" is, when that needs saying

    def delta_lengths(self, then: int, now: int) -> str:
        """A delta's file lengths, after `delta_since`."""
        return f"({then} lines then, {now} now)"

    def option(self, name: str) -> str:
        """A request parameter as the agent writes it (`--offset`; `offset` for tools)."""
        return f"--{name}"

    def expand(self, start: int, end: int, symbol: str | None) -> str:
        """What shows lines *start*..*end* (one symbol's body when *symbol* is given),
        after a marker's colon; the answer's header says which file and tool."""
        if symbol:
            return f"--symbol {shell_word(symbol)}"
        return f"--offset {start} --limit {end - start + 1}"

    def skeleton_help(self, path: str) -> str:
        """The skeleton header's sentence that says how markers are expanded."""
        return f"\"... A-B elided: OPTIONS\" hides lines A-B; tldrs read {shell_word(path)} OPTIONS shows them."

    def read_lines(self, path: str, start: int, end: int) -> str:
        """A whole request that shows lines *start*..*end* of *path*."""
        return f"tldrs read {shell_word(path)} {self.expand(start, end, None)}"

    def see_change(self, path: str, old_path: str | None, revs: tuple[str, ...], untracked: bool) -> str:
        """What shows one changed file's whole change."""
        if untracked:
            return f"git diff --no-index -- /dev/null {shell_word(path)}"
        paths = " ".join(shell_word(p) for p in dict.fromkeys(p for p in (old_path, path) if p))
        return f"git diff {' '.join(shell_word(r) for r in revs)} -- {paths}"

    def pass_back(self, *idents: str) -> str:
        """How a re-read names earlier answers the model still sees (`known` ids)."""
        return f"--known {','.join(idents)}"

    def see_changes(self, revs: tuple[str, ...], untracked: bool) -> str:
        """What lists the changed files a pack could only count."""
        see = "git diff --stat " + " ".join(shell_word(r) for r in revs)
        return see + ("; git status --short" if untracked else "")


class ToolHints(Hints):
    """A host's read tool: parameters by name, no shell, no flags. A change a pack
    leaves out is shown by the pack tool (`pack`) with a larger budget or by reading
    the file."""

    tool = "read"
    pack = "the pack"
    separator = " "

    def option(self, name: str) -> str:
        return name

    def call(self, path: str, args: str = "") -> str:
        """The read tool called on *path* with *args* (already written out)."""
        return f"{self.tool} path={_quoted(path)}" + (f"{self.separator}{args}" if args else "")

    def lines_args(self, start: int, end: int) -> str:
        return f"offset={start}{self.separator}limit={end - start + 1}"

    def expand(self, start: int, end: int, symbol: str | None) -> str:
        if symbol and self.has_symbol:
            return f"symbol={_quoted(symbol)}"
        return self.lines_args(start, end)

    def skeleton_help(self, path: str) -> str:
        return (f"\"... A-B elided: ARGS\" hides lines A-B; {self.tool} with path={_quoted(path)} "
                f"and those ARGS shows them.")

    def read_lines(self, path: str, start: int, end: int) -> str:
        return self.call(path, self.lines_args(start, end))

    def see_change(self, path: str, old_path: str | None, revs: tuple[str, ...], untracked: bool) -> str:
        read = self.call(path)
        return read if untracked else f"{self.pack} with a larger budget, or {read}"

    def see_changes(self, revs: tuple[str, ...], untracked: bool) -> str:
        return f"{self.pack} with a larger budget"


class McpHints(ToolHints):
    """symbolpack's MCP tools: `read_file(path, offset, limit, symbol)`, `diff_context(budget)`.
    A delta leans on the answers the model passed back, not on a read it remembers, and
    symbolpack never sees the model's own edits (the host's edit tool makes them): the
    delta says so, and gives the file's length now only (a model that edited the file
    since read "N lines then" as wrong)."""

    name = "mcp"
    tool = "read_file"
    pack = "diff_context"
    separator = ", "
    delta_since = "since the answers you passed in known"
    model_names_its_copy = True
    # symbolpack never sees a host's edit tool: its own edits are changes to the answers it
    # passed. Real agents checked such lines by range ("they look the same as my copy"), and
    # found "symbolpack does not see your edits" cryptic, and "your own edits are among these
    # changes" wrong for a file they never edited: the plain, conditional words are these
    delta_edits = " If you edited this file since those answers, your edits are among these changes."
    diff_base = (" (what the answers you passed in known showed; if you edited the file since, your edits show in"
                 " this diff as changes)")
    # "(were X-Y)" counted the answers' lines while the model counted its copy after its
    # own edit: a real agent doubted the numbers ("they referred to the earlier answers'
    # coordinates rather than my post-edit copy")
    delta_were = "the answers you passed had it at C-D (before any edit of yours)"

    def delta_lengths(self, then: int, now: int) -> str:
        # "N lines then" counted the answers' lines, not the model's own edit after
        # them: real agents that had edited the file read it as wrong
        return f"({now} lines now)"

    def pass_back(self, *idents: str) -> str:
        return "known=[" + ", ".join(f'"{i}"' for i in idents) + "]"

    def call(self, path: str, args: str = "") -> str:
        return f"read_file(path={_quoted(path)}" + (f", {args})" if args else ")")

    def skeleton_help(self, path: str) -> str:
        return super().skeleton_help(path) + ' Several bodies in one call: symbols=["A", "B"].'


class ClaudeHints(ToolHints):
    """Claude Code's Read tool: `file_path`, `offset`, `limit`; no symbol parameter. So a
    marker names lines only, and `... A-B elided` already says which: the Read that
    shows them (offset=A, limit=B-A+1) is said once, in the header, not in every marker."""

    name = "claude"
    tool = "Read"
    has_symbol = False

    def call(self, path: str, args: str = "") -> str:
        return f"Read {path}" + (f" {args}" if args else "")

    def expand(self, start: int, end: int, symbol: str | None) -> str:
        return ""

    def skeleton_help(self, path: str) -> str:
        return "\"... A-B elided\" hides lines A-B: Read offset=A limit=B-A+1 shows them."


class PiHints(ToolHints):
    """pi's `read` tool as symbolpack's extension overrides it: `path`, `offset`, `limit`, `symbol`."""

    name = "pi"
    tool = "read"


class OpenCodeHints(ToolHints):
    """OpenCode's `read` tool, whose output symbolpack's plugin replaces: `filePath`, `offset`,
    `limit`; no symbol parameter, so a marker names the lines that show it (`offset=A
    limit=N`). The header does not repeat the path: OpenCode resolves a relative `filePath`
    against its own folder, which need not be the repository's root the answer's path is
    relative to, so the model reads the file again by the path it used."""

    name = "opencode"
    tool = "read"
    has_symbol = False

    def call(self, path: str, args: str = "") -> str:
        return f"read filePath={_quoted(path)}" + (f" {args}" if args else "")

    def skeleton_help(self, path: str) -> str:
        return "\"... A-B elided: ARGS\" hides lines A-B; read this file again with those ARGS to see them."


class QwenHints(ToolHints):
    """Qwen Code's `read_file`: `file_path`, `offset` (0-based: line A is offset=A-1) and
    `limit`; no symbol parameter. Its output has no line numbers, so every marker names
    the exact arguments that show its lines (a 0-based offset written out once in a
    header would be one off in half the requests)."""

    name = "qwen"
    tool = "read_file"
    has_symbol = False

    def call(self, path: str, args: str = "") -> str:
        return f"read_file file_path={_quoted(path)}" + (f" {args}" if args else "")

    def lines_args(self, start: int, end: int) -> str:
        return f"offset={start - 1} limit={end - start + 1}"

    def skeleton_help(self, path: str) -> str:
        return "\"... A-B elided: ARGS\" hides lines A-B; read_file of this file with those ARGS shows them."


class ChibiHints(ToolHints):
    """Chibi's plugin tools: `symbolpack_read(path, offset, limit, symbol)`, `symbolpack_diff_context(budget)`."""

    name = "chibi"
    tool = "symbolpack_read"
    pack = "symbolpack_diff_context"


FRONTS: dict[str, Hints] = {h.name: h for h in (Hints(), McpHints(), ClaudeHints(), PiHints(), ChibiHints(),
                                                  OpenCodeHints(), QwenHints())}
CLI = FRONTS["cli"]


def hints_for(front: str | Hints | None) -> Hints:
    """The hints of a front end by name (None: the CLI's)."""
    if front is None:
        return CLI
    if isinstance(front, Hints):
        return front
    try:
        return FRONTS[front]
    except KeyError:
        raise ValueError(f"unknown front end {front!r} (one of: {', '.join(FRONTS)})") from None


# why a re-read naming earlier answers came back whole (`ReadOutcome.fallback`), in the
# model's words: a whole file with no header after known ids was read as "my ids were
# ignored" (real agents, over MCP)
_WHOLE_BECAUSE = {
    "cost": "it changed since the answers you passed, and the changes would take more space than the file",
    "truncated": "most of it changed since the answers you passed",
    "gate": "it changed in too many places since the answers you passed for a delta",
    "mixed": "it changed since the answers you passed",
    "baseline": "the answers you passed show none of its current lines",
    "pending": "an earlier answer may not have reached you",
    # no fallback: no whole-file answer among those passed (a small file is read whole)
    "first": "your first whole read of it (the answers you passed showed parts of it at most)",
}


def with_answer_id(text: str, response: dict, path: str | None, knew: bool, front: str | Hints | None = None,
                   fallback: str | None = None, passed: Sequence[str] = (), declared: str = "") -> str:
    """*text* ending with the line that names its answer for a model that passes ids
    back (MCP's `known`, `tldrs read --known`): `[answer ID]`, with `; relies on ...`
    the answers it vouches from. The first answer about a file (*knew* false) says how
    to pass the id back; a later one names the ids the next read passes. A whole file
    sent back although ids were passed (*fallback*: why, "first" when none of them was a
    whole-file answer) says so first. Ids *passed* that this answer neither relies on
    nor carries are named as not needed: a model that passed four ids and saw three
    relied on wondered whether the fourth's lines still held. An answer kept under no
    id is left as it is. *declared*: where the symbol read is declared ("f declared on
    line 12"), said beside its lines when they start above it (a doc comment)."""
    ident = response.get("answer_id")
    if not ident:
        return text
    leans = response.get("leans_on") or []
    scope = response.get("scope")
    # a range always comes back whole: say so, or a model that passed ids expects a marker
    mode = response.get("mode")
    whole_again = knew and mode == "full" and not scope
    what = (f": lines {scope['start']}-{scope['end']}, as they are now{'; ' + declared if declared else ''}"
            if scope and mode == "range" else ": the whole file, as it is now" if whole_again else "")
    carry = response.get("known_next") or [ident]
    spare = [i for i in dict.fromkeys(passed) if i not in leans and i not in carry]
    line = (f"[answer {ident}{what}" + (f"; relies on {', '.join(leans)}" if leans else "")
            + (f"; {_not_needed(spare)}" if spare else "") + "]")
    if not knew and path:
        line += (f" To read {path} again, pass {hints_for(front).pass_back(ident)} (and the ids of other answers "
                 f"about it you still see).")
    elif knew:  # the model's copy may rest on earlier answers too: they go with it
        line += f" Next read of this file: {hints_for(front).pass_back(*carry)}"
    if whole_again and fallback in _WHOLE_BECAUSE and path:
        text = f"[FILE] {path}: {response.get('total_lines')} lines, whole, as it is now: {_WHOLE_BECAUSE[fallback]}.\n{text}"
    return f"{text.rstrip(chr(10))}\n{line}"


def _not_needed(spare: Sequence[str]) -> str:
    """Ids the model passed that an answer neither relies on nor carries."""
    return f"not needed: {', '.join(spare)} (newer answers show or mark each of its lines, or it is not about this file)"


def _symbols_answer(parts: Sequence[tuple[str, tuple[int, int], dict, int | None]], path: str,
                    asked: Sequence[str], knew: bool, front: str | Hints | None = None, passed: Sequence[str] = (),
                    misses: Sequence[str] = ()) -> str:
    """Several symbols read in one call (`api.operations.read_symbols`) as one answer:
    a header that names each one and its lines (a name shared by overloads says so:
    "more than asked for" unsaid confused real models), then each symbol's lines,
    each closed by its own answer id when it has one, and one line naming what the
    next read passes. *parts*: as `symbols_read_answer` takes them, in source order;
    *asked*: the names the model passed; *misses*: why names among them named nothing."""
    hints = hints_for(front)
    listing = ", ".join(ident if ident.startswith("lines ") else
                        f"{ident} (lines {start}-{end}{f', declared on {line}' if line else ''})"
                        for ident, (start, end), _, line in parts)
    more = [] if misses else [ident for ident, *_ in parts if ident not in asked and not ident.startswith("lines ")]
    if misses:  # said first: a symbol a push removed, shown as where its word occurs, went unnoticed
        head = (f"[SYMBOLS] {path}: " + "; ".join(m[:1].upper() + m[1:] for m in misses)
                + f". Shown, as it is now: {listing}.")
    elif any(ident.startswith("lines ") for ident, *_ in parts):  # not only symbols: not "symbols, whole"
        head = f"[SYMBOLS] {path}, as it is now: {listing}."
    elif len(parts) > 1:
        head = f"[SYMBOLS] {path}: {len(parts)} symbols, each whole, as it is now: {listing}."
    else:
        head = f"[SYMBOLS] {path}: 1 symbol, whole, as it is now: {listing}."
    if more and len(asked) == 1:
        every = "both" if len(parts) == 2 else f"all {len(parts)}"
        head += (f" {_quoted(asked[0])} names {every} (overloads, or the same name in several scopes); "
                 f"pass one of these ids for that one alone.")
    out = [head]
    ids: list[str] = []
    for ident, (start, end), response, _ in parts:
        answer = response.get("answer_id")
        body = response["text"].rstrip("\n")
        if answer:
            ids.append(answer)
            body += f"\n[answer {answer}: lines {start}-{end}, as they are now]"
        out.append(body)
    if ids and not knew:  # asked without ids: the answers it holds from before (a skeleton) still count
        out.append(f"To read {path} again, pass {hints.pass_back(*ids)} (and the ids of other answers about it you "
                   f"still see).")
    elif ids:
        carry = parts[-1][2].get("known_next") or ids
        spare = [i for i in dict.fromkeys(passed) if i not in carry]
        line = f"Next read of this file: {hints.pass_back(*carry)}"
        if spare:
            line += f" ({_not_needed(spare)})"
        out.append(line)
    return "\n".join(out)


def symbols_read_answer(parts: Sequence[tuple[str, tuple[int, int], dict, int | None]], misses: Sequence[str],
                        path: str, asked: Sequence[str], known: Sequence[str] | None,
                        front: str | Hints | None = None) -> str:
    """The text of a read of symbols (`api.operations.read_symbols`: (label, lines,
    response, declaration line) per part): one part alone as a drill-in answers, its id
    line naming where the symbol is declared; several under one header
    (`_symbols_answer`). *known*: the ids the model passed (None: a front that passes
    none, and no id line)."""
    if len(parts) == 1 and not misses:
        label, _, response, line = parts[0]
        if known is None:
            return response["text"]
        return with_answer_id(response["text"], response, response.get("path"), bool(known), front, None, known,
                              f"{label} declared on line {line}" if line else "")
    return _symbols_answer(parts, parts[0][2].get("path") or path, asked, bool(known), front, known or (), misses)
