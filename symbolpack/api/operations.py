"""The operations every front end shares: read, refresh, status.

The CLI, the MCP server and the hooks are thin adapters over these functions,
so one code path decides what an agent sees. Each operation wires the edges
together — the file (`sources`), its symbols (`index`), the session
(`store`) — around the pure decision in `read`.
"""

from __future__ import annotations

import os
from collections.abc import Set as AbstractSetType

from ..reads.read import (
    Current,
    ReadPolicy,
    ReadRequest,
    decide,
    resolve_scope,
)
from ..reads.agentcopy import AgentCopy
from ..reads.hints import hints_for
from ..engine.sources import Source, load_source, split_text_lines
from ..base.tokens import count_tokens
from ..base.errors import NotFound, SymbolpackError, UsageError
from ..base.workspace import project_root_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from collections.abc import Set as AbstractSet
    from typing import Callable, Sequence

    from ..packs.callgraph import CallGraph
    from ..state.snapshot import Snapshot
    from ..engine.index import Index
    from ..base.protocol import SessionStatus
    from ..reads.read import ReadOutcome
    from ..base.settings import Settings
    from ..reads.answers import Effect, Folded
    from ..state.store import Store
    from ..engine.symbols import SymbolSlice


class ReadResult:
    """A protocol response, the exit code the CLI should end with, and the intent to
    commit once the response has been delivered whole (`commit()`)."""

    __slots__ = ("response", "exit_code", "_commit", "fallback")

    def __init__(self, response: dict, exit_code: int = 0, commit: Callable[[], None] | None = None,
                 fallback: str | None = None) -> None:
        self.response = response
        self.exit_code = exit_code
        self._commit = commit
        self.fallback = fallback  # why a plain read answered a re-read (`ReadOutcome.fallback`)

    def commit(self) -> None:
        """Call after the answer reached the agent (written and flushed)."""
        if self._commit is not None:
            self._commit()
            self._commit = None


class Workspace:
    """One project: its root, its settings, its parse index and its session store
    (opened lazily). Without *settings*, the environment and the project's
    pyproject.toml decide (`settings.load_settings`). `root_dir` is the root as a
    str; `root`, the same as a Path, is built on first use (a read never needs
    pathlib: ~4 ms per process)."""

    def __init__(self, root: str | os.PathLike[str] | None = None, settings: Settings | None = None):
        from ..base.settings import load_settings

        self.root_dir = os.path.realpath(root) if root else project_root_dir()
        self._root: Path | None = None
        self.settings = settings if settings is not None else load_settings(self.root_dir)
        self._index: Index | None = None
        self._store: Store | None = None

    @property
    def root(self) -> Path:
        if self._root is None:
            from pathlib import Path

            self._root = Path(self.root_dir)
        return self._root

    @property
    def index(self) -> Index:
        if self._index is None:
            from ..engine.index import Index

            self._index = Index(self.root, settings=self.settings)
        return self._index

    @property
    def store(self) -> Store:
        if self._store is None:
            from ..state.store import Store

            self._store = Store(self.root_dir, settings=self.settings)
        return self._store

    def store_or_none(self) -> Store | None:
        """The store, or None when the state dir cannot be used (unwritable, a file in
        the way): reads then answer plainly and record nothing."""
        try:
            return self.store
        except OSError as exc:
            from ..base.log import warning

            warning(f"no usable state dir ({exc.strerror or exc}); answering with plain reads")
            return None

    def maybe_gc(self) -> None:
        """Amortized collection after an answer went out (see `Store.maybe_gc`)."""
        if self._store is not None:
            self._store.maybe_gc()

    def close(self) -> None:
        if self._index is not None:
            self._index.close()

    # -- what context packs build on; the resident engine (resident.py) keeps them warm
    def call_graph(self, root: Path, snapshot: Snapshot) -> CallGraph:
        """A call graph of *snapshot* (a tree under *root*); give it back with
        `release_graph` when the pack is done."""
        from ..packs.callgraph import CallGraph
        from ..packs.facts import graph_cache
        from ..engine.index import Index
        from ..base.workspace import state_dir

        index = self.index if self.index.root == root.resolve() else Index(root, settings=self.settings)
        return CallGraph(index, snapshot, graph_cache(state_dir(root, settings=self.settings) / "graph"))

    def release_graph(self, graph: CallGraph) -> None:
        if graph.cache:
            graph.cache.close()

    def all_symbols(self, root: Path) -> list[SymbolSlice]:
        """Every symbol of the files under *root*, in walk order."""
        warm = self.warm_symbols(root)
        if warm is not None:
            return warm
        from ..engine.index import walk

        return [s for f in self.index.iter_files(walk(root, root).files) for s in f.symbols]

    def warm_symbols(self, root: Path) -> list[SymbolSlice] | None:
        """Every symbol under *root* when this workspace keeps them warm (a resident
        engine: `resident.py`), else None (the caller finds what it needs cold)."""
        return None

    def symbols_of(self, rel: str, data: bytes) -> list[SymbolSlice] | None:
        """Symbols of *data* as file *rel*, or None when no parser handles it (or the
        parse failed). One file parses faster than the parse cache opens (diskcache
        and sqlite cost tens of milliseconds per process), so reads bypass it."""
        from ..engine.languages import has_query, language_for_source
        from ..engine.symbols import bind, parse_bytes

        lang = language_for_source(rel, data)
        if not has_query(lang):
            return None
        records, _, error = parse_bytes(data, lang, references=False)
        return None if error else bind(rel, lang, records)


def _passthrough(source: Source) -> dict:
    text = f"[PASSTHROUGH] {source.rel}: {source.passthrough}. Nothing of it was shown or stored."
    return {"v": 1, "path": source.rel, "mode": "passthrough", "scope": None, "total_lines": None,
            "sha256": None, "text": text, "tokens": count_tokens(text), "full_tokens": None}


def read_file(
    ws: Workspace,
    path: str | os.PathLike[str],
    session_id: str | None,
    offset: int | None = None,
    limit: int | None = None,
    symbol: str | None = None,
    force_full: bool = False,
    policy: ReadPolicy = ReadPolicy(),
    record: bool = True,
    confirm: bool = True,
    answer_id: str | None = None,
    present: Sequence[str] | AbstractSet[str] | None = None,
    front: str | None = None,
    capped: bool = False,
) -> ReadResult:
    """Answer one read for *session_id* and update the agent's copy.

    *capped*: *offset*/*limit* are the host's cap on a whole-file read (Claude's Read
    shows 2,000 lines), not a range the model asked for (`ReadRequest.capped`).

    *present*: the ids of the answers still in the model's context, in the order
    the host holds them (`reads/answers.py`; a set, as a model passes them, folds
    in the order they were given). The answer is then computed against
    exactly what those answers gave the model, whatever else this session was
    told; the response (protocol v2) names its `answer_id` (*answer_id*, the
    host's id for this call, else a new one) and the answers it `leans_on`. An
    *answer_id* alone records the answer under that id without a present set.

    With *confirm* (in-process callers, for whom returning is delivering) the answer
    is committed at once; front ends that write the answer somewhere pass
    ``confirm=False`` and call ``result.commit()`` after the write. Without a session
    (None, or `record=False`) or without a usable state dir, the answer is a plain
    read of the scope and nothing is stored. *front*: the front end the answer goes
    to (`cli`, `mcp`, `claude`, `pi`): markers and errors name its own parameters."""
    hints = hints_for(front)
    target = os.fspath(path)
    if not os.path.isabs(target):
        target = os.path.join(os.getcwd(), target)
    try:
        source = load_source(target, ws.root_dir, ws.settings.sensitive)
    except SymbolpackError:
        if session_id is not None and record and not os.path.lexists(target):
            _forget_deleted(ws, target, session_id)
        raise
    if source.passthrough:
        return ReadResult(_passthrough(source))
    home = _home_of(ws, source)
    if home is not None:  # a file outside this project (through a symlink): kept where a direct read keeps it
        other = Workspace(home)
        try:
            return read_file(other, source.path, session_id, offset, limit, symbol, force_full, policy, record,
                             confirm, answer_id, present, front)
        finally:
            other.close()

    policy = policy._replace(small_file_tokens=ws.settings.small_file_tokens)
    lines = split_text_lines(source.text)
    current = Current(source.sha256, lines, lambda: ws.symbols_of(source.rel, source.data), source.diffable)
    target_symbol = None
    if symbol is not None:
        from ..engine.lookup import resolve

        syms = current.symbols
        if not syms:
            raise UsageError(f"no symbols in {source.rel} (no parser handles it); "
                             f"use {hints.option('offset')}/{hints.option('limit')}")
        target_symbol = resolve(symbol, syms, where=source.rel)
    request = ReadRequest(source.rel, offset, limit, target_symbol, force_full, hints=hints, capped=capped)

    store = ws.store_or_none() if record and session_id is not None else None
    if store is None or session_id is None:
        return ReadResult(_decide(request, current, AgentCopy(0), lambda sha: None, policy, plain=True).response)

    loaded: dict[str, list[str] | None] = {source.sha256: lines}

    def load(sha: str) -> list[str] | None:
        if sha not in loaded:
            data = store.get_object(sha)
            loaded[sha] = None if data is None else split_text_lines(data.decode("utf-8", "surrogateescape"))
        return loaded[sha]

    folded = None
    chosen: list = []
    with store.session(session_id) as session:
        if present is not None:
            from ..reads.answers import fold, in_fold_order

            chosen = in_fold_order(present, store.answers(source.rel))
            folded = fold(chosen, load)
            copy = folded.copy
            # lines a later answer took the number of, or whose keep lost its base: not new to it
            request = request._replace(shown=frozenset(folded.shown), lost=folded.lost)
            own = _own_edit_runs(folded.source, {e.id for e in chosen if e.base is not None})
            if own:
                request = request._replace(own_edits=own)
            elif copy.length is None and any(e.base is not None for e in chosen):
                # the model edited this file and its copy is unknown (an edit it could not
                # have placed): the whole file, its edit in it, not a skeleton hiding it
                request = request._replace(force_full=True)
        else:
            copy = session.copy(source.rel)
        current.know_full_tokens(session.full_tokens(source.rel, source.sha256))
        told = tuple(mode for mode in ("skeleton", "delta") if session.shown(mode))
        if present is not None and not chosen:
            told = ()  # the model may hold no answer that explained the markers (a compaction, a rewind)
        if told:
            request = request._replace(told=told)

        def names_of(sha: str) -> set[str] | None:
            # the names a parse of that version left beside its object, else a parse of it
            kept = store.get_names(sha, _parser_version(source.rel))
            if kept is not None:
                return set(kept)
            text = load(sha)
            parsed = None if text is None else ws.symbols_of(source.rel, "\n".join(text).encode(
                "utf-8", "surrogateescape"))
            return None if parsed is None else {s.qualname for s in parsed}

        def names_before(old_lines: Sequence[str | None]) -> set[str] | None:
            # the names of the versions the copy was made of say what the model could have
            # seen: a parse of a copy stitched from several nests what follows an unfinished
            # body inside it, and made up removals (real agents read "Removed: getPath" beside
            # "now at: getPath 1744"); a copy with gaps (answers whose base left the context)
            # named no removal at all ("defaultMaxDepth" gone, and found by a range read)
            versions = copy.versions()
            if versions:
                found: set[str] = set()
                for sha in versions:
                    names = names_of(sha)
                    if names is None:
                        return None
                    found |= names
                return found
            text = [line for line in old_lines if line is not None]
            if len(text) < len(old_lines):
                return None  # a partial text would make up removals
            before = ws.symbols_of(source.rel, "\n".join(text).encode("utf-8", "surrogateescape"))
            return None if before is None else {s.qualname for s in before}

        outcome = _decide(request, current, copy, load, policy, plain=session.degraded, names_before=names_before)
        new_copy = outcome.copy
        intent = None
        if outcome.changes_copy_text:
            start, end = outcome.scope or (1, max(len(lines), copy.extent(), 1))
            intent = session.new_intent()
            new_copy = new_copy.cleared(start, end).with_pending(intent, start, end)
        if source.sha256 in new_copy.versions():
            store.put_object(source.data, source.sha256)
            if current.parsed:  # the next re-read names removed symbols without parsing this version
                store.put_names(source.sha256, _parser_version(source.rel), (s.qualname for s in current.parsed))
        session.set_copy(source.rel, new_copy)
        if current.counted_full_tokens is not None:  # an unchanged re-read need not count them again
            session.remember_full_tokens(source.rel, source.sha256, current.counted_full_tokens)
        response = outcome.response
        if answer_id is not None or present is not None:
            # what to pass next is said to a model that names its answers itself (a set:
            # MCP's `known`); a host's record (a sequence) names them without its help
            from collections.abc import Set

            carry = isinstance(present, Set)
            response = _keep_answer(store, source, response, answer_id, folded, chosen, load if carry else None)
        session.record_read(response["mode"], response["tokens"], response["full_tokens"] or 0)
        for item in outcome.drill_ins:
            session.record_drill_in({"path": source.rel, **item})
    result = ReadResult(response, commit=(lambda: store.commit(intent)) if intent else None,
                        fallback=outcome.fallback)
    if outcome.fallback:
        from ..base.log import debug

        debug(f"{source.rel}: a plain read answered ({outcome.fallback})")
    if confirm:
        result.commit()
    return result


def read_symbols(
    ws: Workspace,
    path: str | os.PathLike[str],
    session_id: str | None,
    names: Sequence[str],
    policy: ReadPolicy = ReadPolicy(),
    present: Sequence[str] | AbstractSet[str] | None = None,
    front: str | None = None,
    lines_too: tuple[int | None, int | None] = (None, None),
) -> tuple[list[tuple[str, tuple[int, int], ReadResult, int | None]], list[str]]:
    """Several symbols of one file read whole, as one call: what each of *names* names
    (a name several definitions share, such as a method's overloads, is all of them:
    `lookup.resolve_all`), in source order, a part inside another one read here left
    out (its text is in the outer one). Each is its own answer, as `read_file` with
    that symbol gives it, each leaning on the answers before it (*present* grows by
    their ids). Real agents drilled into the bodies a skeleton hid one call each; a
    call re-sends the whole context, so a drill-in into three bodies is worth one call.
    A name no symbol has that the file's text has (a setting, a key, a constant
    inside a body) reads the lines around where it occurs (`OCCURRENCES_SHOWN` of
    them, `OCCURRENCE_CONTEXT` lines each side): real agents then read them by range.
    *lines_too*: an offset and limit asked for in the same call, read as one more part
    (a real agent that passed both got the symbol alone, and read the range again).
    Nothing is committed: the caller commits every result once the answer is out.
    Returns (label, lines, result, the line a symbol is declared on when its lines start
    above it: real agents confirmed line numbers with a range read) per part and, per
    name that names nothing, why
    (one name alone that names nothing anywhere is an error, as for `read_file`)."""
    from ..engine.lookup import local_id, names_exactly, resolve_all
    from ..reads.delta import declaration_line

    hints = hints_for(front)
    target = os.fspath(path)
    if not os.path.isabs(target):
        target = os.path.join(os.getcwd(), target)
    source = load_source(target, ws.root_dir, ws.settings.sensitive)
    syms = None if source.passthrough else ws.symbols_of(source.rel, source.data)
    if not syms:
        raise UsageError(f"no symbols in {source.rel} (no parser handles it); "
                         f"use {hints.option('offset')}/{hints.option('limit')}")
    lines = split_text_lines(source.text)
    scopes: dict[tuple[int, int], str] = {}  # lines -> what the header calls them
    symbol_of: dict[tuple[int, int], str] = {}
    declared: dict[tuple[int, int], int] = {}  # a symbol's declaration line, when its lines start above it
    misses: list[str] = []

    def where_it_occurs(name: str, where: list[tuple[int, int]]) -> None:
        misses.append(f"{name!r} is not a symbol of this file (a variable, a setting, a key, or a name a change"
                      f" removed)")
        for a, b in where:
            scopes.setdefault((a, b), f"where {name} occurs")

    for name in names:
        try:
            found = resolve_all(name, syms, where=source.rel)
        except (NotFound, UsageError) as exc:
            where = _occurrences(lines, name, syms) if isinstance(exc, NotFound) else []
            if not where:
                if len(names) == 1:
                    raise
                misses.append(str(exc))  # one name gone (a push removed it) spoils not the others
                continue
            where_it_occurs(name, where)
            continue
        if not names_exactly(name, syms):
            # a near spelling: the name as the text has it wins (`hasIteratorFrom`, a const,
            # read as the function `iteratorFrom` misled a real agent), else it is said
            where = _occurrences(lines, name, syms)
            if where:
                where_it_occurs(name, where)
                continue
            misses.append(f"no symbol is named {name!r}; shown instead: {', '.join(local_id(s) for s in found)}"
                          f" (the nearest spelling)")
        for sym in found:
            span = (sym.lines[0], sym.lines[1])
            local = local_id(sym)
            scopes.setdefault(span, _label(local, sym, syms, source.rel))
            symbol_of.setdefault(span, local)
            declared.setdefault(span, declaration_line(lines, sym))
    if lines_too != (None, None):
        span = resolve_scope(len(lines), lines_too[0], lines_too[1], hints) or (1, max(len(lines), 1))
        scopes.setdefault(span, f"lines {span[0]}-{span[1]}")
    if not scopes:
        raise NotFound("; ".join(misses))
    ordered = sorted(scopes, key=lambda span: (span[0], -span[1]))
    outermost = [s for s in ordered if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in ordered)]
    out: list[tuple[str, tuple[int, int], ReadResult, int | None]] = []
    given: list[str] = []
    room = policy.max_answer_chars  # the host's cap on a tool result: parts past it wait for another call
    left_out: list[str] = []
    for span in outermost:
        size = sum(len(text) + 8 for text in lines[span[0] - 1:span[1]])  # numbered as an answer shows them
        if room is not None and out and size > room:
            left_out.append(scopes[span])
            continue
        if room is not None:
            room -= size
        now: Sequence[str] | AbstractSet[str] | None
        if present is None:
            now = None
        elif isinstance(present, AbstractSetType):
            now = frozenset(present) | frozenset(given)
        else:
            now = [*present, *given]
        if span in symbol_of:
            result = read_file(ws, source.path, session_id, symbol=symbol_of[span], policy=policy, confirm=False,
                               present=now, front=front)
        else:
            result = read_file(ws, source.path, session_id, offset=span[0], limit=span[1] - span[0] + 1,
                               policy=policy, confirm=False, present=now, front=front)
        if result.response.get("answer_id"):
            given.append(result.response["answer_id"])
        scope = result.response.get("scope")
        lines_given = (scope["start"], scope["end"]) if scope else span
        line = declared.get(span)
        out.append((scopes[span], lines_given, result, line if line is not None and line > lines_given[0] else None))
    if left_out:  # an answer past the cap loses its end, ids included, and the model reads it all again
        misses.append(f"not read in this answer, which would pass the tool's output limit: {', '.join(left_out)}; "
                      f"ask for them in another call")
    return out, misses


def _label(local: str, symbol: SymbolSlice, symbols: Sequence[SymbolSlice], where: str) -> str:
    """What an answer calls *symbol*: its local id, without a repeat's `#n` when the bare
    name reads this one (the implementation after `@overload` stubs: "_encode_params#5"
    puzzled real agents, who read the lines above it to learn what #5 meant)."""
    from ..engine.lookup import resolve

    base = local.split("#")[0]
    if base == local:
        return local
    try:
        return base if resolve(base, symbols, where) is symbol else local
    except SymbolpackError:
        return local


OCCURRENCES_SHOWN = 3
OCCURRENCE_CONTEXT = 4


def _occurrences(lines: Sequence[str], name: str, syms: Sequence = ()) -> list[tuple[int, int]]:
    """Windows around the first lines where *name* (its last part: `Class.key` -> `key`)
    occurs as a word, merged where they touch. A qualified name's last part counts
    inside a symbol of *syms* its qualifier names (a setting inside `class Base`), and,
    where none is named so, on a line that names the qualifier too: `ConfigParseError.Error`
    in a file that only uses `ConfigParseError` showed another type's `Error` (a real
    agent was misled)."""
    import re

    parts = [part.strip() for part in re.split(r"[.#]|::", name)]
    if not parts[-1]:
        return []

    def as_word(part: str) -> "re.Pattern[str]":
        return re.compile(r"(?<![\w$])" + re.escape(part) + r"(?![\w$])")

    pattern = as_word(parts[-1])
    qualifier = [part for part in parts[:-1] if part]
    spans = [s.lines for s in syms if qualifier and s.qualname.rsplit(".", 1)[-1] == qualifier[-1]]
    named = [as_word(part) for part in qualifier]

    def counts(n: int, line: str) -> bool:
        if not pattern.search(line):
            return False
        if spans:
            return any(a <= n <= b for a, b in spans)
        return all(word.search(line) for word in named)

    hits = [n for n, line in enumerate(lines, 1) if counts(n, line)][:OCCURRENCES_SHOWN]
    windows: list[tuple[int, int]] = []
    for n in hits:
        a, b = max(1, n - OCCURRENCE_CONTEXT), min(len(lines), n + OCCURRENCE_CONTEXT)
        if windows and a <= windows[-1][1] + 1:
            windows[-1] = (windows[-1][0], b)
        else:
            windows.append((a, b))
    return windows


def _own_edit_runs(source: Sequence[str | None], edit_ids: set[str]) -> tuple[tuple[int, int], ...]:
    """Runs of copy lines last set by one of the model's own edits (*edit_ids*)."""
    runs: list[tuple[int, int]] = []
    for n in range(1, len(source)):
        if source[n] in edit_ids:
            if runs and runs[-1][1] == n - 1:
                runs[-1] = (runs[-1][0], n)
            else:
                runs.append((n, n))
    return tuple(runs)


def _home_of(ws: Workspace, source: Source) -> str | None:
    """The project a file outside *ws* belongs to, when it is another one: its answers
    and copies are kept there, whichever path reached it (a symlink inside *ws* and
    the file's own path show the same absolute name, so they must be one copy)."""
    if not os.path.isabs(source.rel):
        return None
    home = project_root_dir(os.path.dirname(source.path))
    return None if home == ws.root_dir else home


def _keep_answer(store: Store, source: Source, response: dict, answer_id: str | None,
                 folded: Folded | None, chosen: Sequence[Effect] = (),
                 load: Callable[[str], list[str] | None] | None = None) -> dict:
    """Record the answer's effect under its id; the response says so (v2). With a present
    set (*folded*, from the effects *chosen*) and *load* (given for a model that names
    its present set itself: MCP's `known`), it also says which answers, this one
    included, the model's copy now rests on (`known_next`): it passes those next, no
    fewer."""
    import time

    from ..reads.answers import effect_of, fold, new_answer_id

    ident = answer_id or new_answer_id({e.id for e in store.answers(source.rel)})
    effect = effect_of(response, ident, time.time_ns())
    if effect is not None:
        if effect.sha:
            store.put_object(source.data, effect.sha)
        store.add_answer(source.rel, effect)
    out = {**response, "v": 2, "answer_id": ident}
    if folded is not None:
        out["leans_on"] = folded.leaned_on(effect) if effect is not None else []
        if effect is not None and load is not None:
            answers = [e for e in chosen if not e.always] + [effect]
            used = set(fold([*chosen, effect], load).source)
            out["known_next"] = list(dict.fromkeys(e.id for e in answers if e.id in used or e is effect))
    return out


def _decide(request: ReadRequest, current: Current, copy: AgentCopy, load: Callable[[str], list[str] | None],
            policy: ReadPolicy, plain: bool,
            names_before: Callable[[Sequence[str]], set[str] | None] | None = None
            ) -> ReadOutcome:
    return decide(request, current, copy, load, policy, degraded=plain, names_before=names_before)


def _parser_version(rel: str) -> str:
    from ..engine.languages import language_for_path, query_version

    return query_version(language_for_path(rel) or "")


def _forget_deleted(ws: Workspace, target: str, session_id: str) -> None:
    """A file this session read is gone: drop its copy and say so plainly."""
    from ..base.workspace import display_path

    store = ws.store_or_none()
    if store is None:
        return
    rel = display_path(os.path.realpath(target), ws.root_dir)
    with store.session(session_id) as session:
        had_copy = session.drop_file(rel)
    if had_copy:
        raise NotFound(f"{rel} was deleted since your last read; your copy of it is dropped")


def refresh(ws: Workspace, path: str | os.PathLike[str], session_id: str, offset: int | None = None,
            limit: int | None = None, front: str | None = None) -> str:
    """The agent lost those lines: remove them from its copy, whatever answer they
    came from, so the next read of them is plain. *front*: as for `read_file`."""
    target = os.fspath(path)
    target = target if os.path.isabs(target) else os.path.join(os.getcwd(), target)
    source = load_source(target, ws.root_dir, ws.settings.sensitive)
    if source.passthrough:
        return f"{source.rel}: not tracked ({source.passthrough})"
    home = _home_of(ws, source)
    if home is not None:
        other = Workspace(home)
        try:
            return refresh(other, source.path, session_id, offset, limit, front)
        finally:
            other.close()
    lines = split_text_lines(source.text)
    scope = resolve_scope(len(lines), offset, limit, hints_for(front))  # ReadError: a UsageError
    with ws.store.session(session_id) as session:
        copy = session.copy(source.rel)
        if scope is None:
            session.set_copy(source.rel, AgentCopy(copy.length if copy.length is not None else 0))
            first = last = None
        else:
            # the lines the agent says it lost, even past the file's end now: its copy
            # may be of a longer version
            first = offset or 1
            last = first + limit - 1 if limit is not None else max(copy.extent(), scope[1])
            session.set_copy(source.rel, copy.forgotten(first, last))
        if ws.store.has_answers(source.rel):  # answers kept by id forget those lines too, from now on
            import time

            from ..reads.answers import forget_effect, new_answer_id

            ws.store.add_answer(source.rel, forget_effect(new_answer_id(), first, last, time.time_ns()))
    what = "the whole file" if scope is None else f"lines {scope[0]}-{scope[1]}"
    return f"{source.rel}: forgotten; the next read of {what} leans on nothing you were shown of it before"


def status(ws: Workspace, session_id: str) -> SessionStatus:
    with ws.store.session(session_id, write=False) as session:
        data = session.data
        stats = data["stats"]
        reads = stats.get("reads", {})
        total_reads = sum(reads.values())
        hits = reads.get("unchanged", 0)
        return {
            "session_id": session_id,
            "files": session.file_count(),
            "reads": total_reads,
            "reads_by_mode": reads,
            "tokens": stats.get("tokens", 0),
            "full_tokens": stats.get("full_tokens", 0),
            "saved_tokens": stats.get("full_tokens", 0) - stats.get("tokens", 0),
            "hit_rate": round(hits / total_reads, 4) if total_reads else 0.0,
            "drill_ins": stats.get("drill_ins", 0),
            "recent_drill_ins": session.drill_ins()[-10:],
        }
