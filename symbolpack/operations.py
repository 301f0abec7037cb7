"""The operations every front end shares: read, refresh, status.

The CLI, the MCP server and the hooks are thin adapters over these functions,
so one code path decides what an agent sees. Each operation wires the edges
together — the file (`sources`), its symbols (`index`), the session
(`store`) — around the pure decision in `read`.
"""

from __future__ import annotations

from pathlib import Path

from .read import (
    FULL,
    Baseline,
    Current,
    ReadError,
    ReadPolicy,
    ReadRequest,
    ViewState,
    decide,
    range_key,
    request_scope,
    resolve_scope,
    scope_key,
)
from .sources import Source, load_source, split_text_lines
from .tokens import count_tokens
from .workspace import SymbolpackError, project_root


class ReadResult:
    """A protocol response and the exit code the CLI should end with."""

    __slots__ = ("response", "exit_code")

    def __init__(self, response: dict, exit_code: int = 0):
        self.response = response
        self.exit_code = exit_code


class Workspace:
    """One project: its root, its parse index and its session store (opened lazily)."""

    def __init__(self, root: Path | None = None):
        self.root = (root or project_root()).resolve()
        self._index = None
        self._store = None

    @property
    def index(self):
        if self._index is None:
            from .index import Index

            self._index = Index(self.root)
        return self._index

    @property
    def store(self):
        if self._store is None:
            from .store import Store

            self._store = Store(self.root)
        return self._store

    def close(self) -> None:
        if self._index is not None:
            self._index.close()

    def symbols_of(self, rel: str, data: bytes):
        """Symbols of *data* as file *rel*, or None when no parser handles it (or the
        parse failed). One file parses faster than the parse cache opens (diskcache
        and sqlite cost tens of milliseconds per process), so reads bypass it."""
        from .languages import has_query, language_for_path
        from .symbols import bind, parse_bytes

        lang = language_for_path(rel)
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
    path: str | Path,
    session_id: str,
    offset: int | None = None,
    limit: int | None = None,
    symbol: str | None = None,
    force_full: bool = False,
    policy: ReadPolicy = ReadPolicy(),
    record: bool = True,
) -> ReadResult:
    """Answer one read for *session_id*, update its view, and return the response."""
    target = Path(path)
    if not target.is_absolute():
        target = Path.cwd() / target
    try:
        source = load_source(target, ws.root)
    except SymbolpackError:
        if not target.exists() and not target.is_symlink():
            _forget_deleted(ws, target, session_id)
        raise
    if source.passthrough:
        return ReadResult(_passthrough(source))

    lines = split_text_lines(source.text)
    current = Current(source.sha256, lines, lambda: ws.symbols_of(source.rel, source.data), source.diffable)
    target_symbol = None
    if symbol is not None:
        from .lookup import resolve

        syms = current.symbols
        if not syms:
            raise SymbolpackError(f"no symbols in {source.rel} (no parser handles it); use --offset/--limit")
        target_symbol = resolve(symbol, syms, where=source.rel)
    request = ReadRequest(source.rel, offset, limit, target_symbol, force_full)

    def load_baseline(sha: str) -> Baseline | None:
        data = ws.store.get_object(sha)
        if data is None:
            return None
        return Baseline(sha, split_text_lines(data.decode("utf-8")), lambda: ws.symbols_of(source.rel, data))

    if not record:
        outcome = decide(request, current, {}, load_baseline, 0, policy)
        return ReadResult(outcome.response)

    with ws.store.session(session_id) as session:
        views = {}
        for key, raw in session.views(source.rel).items():
            try:
                views[key] = ViewState.from_json(raw)
            except (KeyError, TypeError, ValueError):
                session.drop_file(source.rel)  # a damaged entry: forget it, read fully
                views = {}
                break
        try:
            key = scope_key(request_scope(request, len(lines)))
        except ReadError:
            key = FULL  # decide() reports the bad range
        if session.wants_refresh(source.rel, key):
            request = ReadRequest(source.rel, offset, limit, target_symbol, True)
        try:
            outcome = decide(request, current, views, load_baseline, session.next_seq(), policy,
                             degraded=session.degraded)
        except ReadError as exc:
            raise SymbolpackError(str(exc)) from None
        if outcome.view is not None and outcome.view_key is not None:
            ws.store.put_object(source.data, source.sha256)
            session.set_view(source.rel, outcome.view_key, outcome.view.to_json())
        response = outcome.response
        session.record_read(response["mode"], response["tokens"], response["full_tokens"] or 0)
        for item in outcome.drill_ins:
            session.record_drill_in({"path": source.rel, **item})
    return ReadResult(response)


def record_given_lines(store, session, rel: str, lines, start: int, end: int) -> None:
    """Remember that this session was shown lines start..end of *rel* (as they are in
    *lines*) by another channel, a context pack: a later range read or drill-in of
    those lines can then answer `[UNCHANGED]` instead of sending them again. The
    view is a range view like any other, so the read rules judge it the same way."""
    from .sources import is_sensitive

    if is_sensitive(rel) or not (1 <= start <= end <= len(lines)):
        return
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")
    sha = store.put_object(data)
    view = ViewState(sha, session.next_seq(), len(lines), ((start, end),), (start, end))
    session.set_view(rel, range_key((start, end)), view.to_json())


def _forget_deleted(ws: Workspace, target: Path, session_id: str) -> None:
    """A file this session read is gone: drop its views and say so plainly."""
    from .workspace import display_path

    rel = display_path(target.resolve(), ws.root)
    with ws.store.session(session_id) as session:
        had_view = session.drop_file(rel)
    if had_view:
        raise SymbolpackError(f"{rel} was deleted since your last read; your view of it is dropped")


def refresh(ws: Workspace, path: str | Path, session_id: str, offset: int | None = None,
            limit: int | None = None) -> str:
    """Make the next read of that scope a plain full read."""
    source = load_source(Path(path).absolute(), ws.root)
    if source.passthrough:
        return f"{source.rel}: not tracked ({source.passthrough})"
    lines = split_text_lines(source.text)
    try:
        key = scope_key(resolve_scope(len(lines), offset, limit))
    except ReadError as exc:
        raise SymbolpackError(str(exc)) from None
    with ws.store.session(session_id) as session:
        session.drop_view(source.rel, key)
    return f"{source.rel}: the next read of {'the whole file' if key == FULL else key} will be a full read"


def status(ws: Workspace, session_id: str) -> dict:
    with ws.store.session(session_id, write=False) as session:
        data = session.data
        stats = data["stats"]
        reads = stats.get("reads", {})
        total_reads = sum(reads.values())
        hits = reads.get("unchanged", 0)
        return {
            "session_id": session_id,
            "files": len(data["files"]),
            "reads": total_reads,
            "reads_by_mode": reads,
            "tokens": stats.get("tokens", 0),
            "full_tokens": stats.get("full_tokens", 0),
            "saved_tokens": stats.get("full_tokens", 0) - stats.get("tokens", 0),
            "hit_rate": round(hits / total_reads, 4) if total_reads else 0.0,
            "drill_ins": stats.get("drill_ins", 0),
            "recent_drill_ins": data.get("drill_ins", [])[-10:],
            "symbols_given": len(data.get("symbols", {})),
        }
