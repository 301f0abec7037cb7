"""Packing: how the slices of a pack are shown under a token budget, and what the agent then holds.

A `PackSlice` is one symbol and its form (code, signature, `[UNCHANGED]` stub);
`allocate` chooses the forms in a fixed order (the slices that must be there,
in their cheapest form, then signatures of the others, then their code), `fit`
draws the text and takes back what does not fit (the budget is a hard cap), and
`render` lays it out. A `Pack` is one pack being decided: its budget, its
slices, its footer and the text drawn last; `context` and `diff-context` each
say what their pack must hold. `with_session` decides a pack inside the
session lock, where a slice is a stub only when the agent's copy holds that
symbol's whole code as it is now, and writes what the pack showed into the copy.
"""

from __future__ import annotations


from .related import RELEVANCE_ORDER
from ..reads.hints import CLI, Hints
from ..engine.symbols import SymbolSlice
from ..base.tokens import count_tokens
from ..base.workspace import sha256_hex

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from collections.abc import Set as AbstractSet
    from typing import Callable, Iterable, Sequence

    from ..base.protocol import PackSliceJSON
    from ..state.store import Session, Store

HEADER_TOKENS = 15  # the "== signatures ==", "== code ==", "== diffs ==" lines
WINDOW_CONTEXT = 3  # lines shown around a change inside a window, as `git diff` does
WINDOW_GAP = 2  # hidden runs this short are shown instead (a marker costs more)
BRIEF_SIGNATURE = 30  # tokens of a signature shown on one line


# A plain class, not a dataclass: this module is on the start-up path of
# `diff-context` and `context`, where the `dataclasses` import and dataclass
# creation cost ~12 ms a process. Equality is identity: the slices of one pack are
# distinct symbols (`work.remove`, `in work` mean this very slice).
class PackSlice:
    """A symbol in a pack and how it is shown: code, signature, or `[UNCHANGED]` stub.

    Code is the symbol's whole span, or for a long changed symbol a *window*: one
    run of its lines around the change (the signature and markers naming the hidden
    lines and the command that shows them are drawn around it). A window is what
    the agent receives of that symbol -- its JSON `lines`/`code`, and the only lines
    of it the copy records -- so a symbol shown through a window is not held whole.
    """

    __slots__ = ("sym", "relevance", "lines", "depth", "mode", "cut", "code_ok", "upgraded", "diffed", "brief",
                 "window", "_code_cost", "_sig_cost")

    def __init__(self, sym: SymbolSlice, relevance: str, lines: Sequence[str], depth: int = 0,
                 mode: str = "signature", cut: bool = False, code_ok: bool = True, upgraded: bool = False,
                 diffed: bool = False, brief: bool = False, window: tuple[int, int] | None = None,
                 _code_cost: dict | None = None, _sig_cost: dict | None = None) -> None:
        self.sym = sym
        self.relevance = relevance
        self.lines = lines  # the file's lines, decoded
        self.depth = depth
        self.mode = mode  # code | signature | unchanged
        self.cut = cut  # wanted code, the budget said no
        self.code_ok = code_ok  # False for a class reached by a call: its constructor carries the code
        self.upgraded = upgraded  # code chosen over a cheaper mandatory form (signature + diff)
        self.diffed = diffed  # a changed symbol shown by its signature and diff: far cheaper than its code
        self.brief = brief  # its signature on one line, cut short (a symbol around a change)
        self.window = window  # code: the lines shown of a long symbol (None: all of it)
        self._code_cost: dict = {} if _code_cost is None else _code_cost
        self._sig_cost: dict = {} if _sig_cost is None else _sig_cost

    @property
    def span(self) -> tuple[int, int]:
        """The lines shown as code: the window, or the whole symbol."""
        return self.window or self.sym.lines

    def code_cost(self) -> int:
        if self.window not in self._code_cost:
            self._code_cost[self.window] = block_cost(_code_block(self))
        return self._code_cost[self.window]

    def prefer_window(self, window: tuple[int, int] | None) -> None:
        """Show *window* instead of the whole symbol when it costs fewer tokens."""
        self.window = None
        if window is not None:
            whole = self.code_cost()
            self.window = window
            if self.code_cost() >= whole:
                self.window = None

    def signature_shown(self) -> bool:
        """Is the signature drawn unnumbered above a window (which starts below it)?"""
        if self.window is None or self.window[0] == self.sym.lines[0]:
            return False
        start = _signature_start(self)
        return start is None or self.window[0] > start

    def signature_cost(self) -> int:
        key = (self.mode == "unchanged", self.cut, self.diffed)
        if key not in self._sig_cost:
            self._sig_cost[key] = block_cost(_signature_block(self))
        return self._sig_cost[key]

    @property
    def code(self) -> str:
        a, b = self.span
        return "\n".join(self.lines[a - 1:b])

    def to_json(self) -> PackSliceJSON:
        s = self.sym
        code = self.mode == "code"
        a, b = self.span if code else s.lines
        etag = s.etag if not (code and self.window) else sha256_hex(self.code.encode("utf-8"))[:20]
        return {"id": s.id, "path": s.path, "kind": s.kind, "signature": s.signature,
                "lines": [a, b], "code": self.code if code else None, "etag": etag, "relevance": self.relevance}


def window_around(sym: SymbolSlice, positions: Iterable[int]) -> tuple[int, int] | None:
    """The run of *sym*'s lines that shows *positions* (changed lines, where lines were
    removed) with `WINDOW_CONTEXT` lines around them; None when that is the whole symbol."""
    a, b = sym.lines
    inside = [n for n in positions if a <= n <= b]
    if not inside:
        return None
    start, end = max(a, min(inside) - WINDOW_CONTEXT), min(b, max(inside) + WINDOW_CONTEXT)
    if start - a <= WINDOW_GAP:
        start = a
    if b - end <= WINDOW_GAP:
        end = b
    return None if (start, end) == (a, b) else (start, end)


def _signature_start(s: PackSlice) -> int | None:
    """The line where *s*'s signature starts (after its decorators and doc comments), if found."""
    sym = s.sym
    first = (sym.signature or "").split("\n")[0].strip()
    if not first:
        return None
    a, b = sym.lines
    for n in range(a, min(b, a + 200) + 1):
        if s.lines[n - 1].strip().startswith(first):
            return n
    return None


def header_end(sym: SymbolSlice) -> int:
    """The last line before *sym*'s body: decorators, doc comments, signature, docstring."""
    a = sym.lines[0]
    body = sym.body
    return body[0] - 1 if body and body[0] > a else a


def signature_span(sym: SymbolSlice, lines: Sequence[str]) -> tuple[int, int]:
    """The lines *sym*'s signature occupies (what a signature display draws, unnumbered):
    from the line that opens it, as many lines as it has; the whole header when it
    cannot be found (a docstring or the body below it was not drawn)."""
    a, end = sym.lines[0], header_end(sym)
    sig = (sym.signature or sym.name).split("\n")
    first = sig[0].strip()
    for n in range(a, min(end, len(lines)) + 1):
        if first and lines[n - 1].strip() == first:
            return n, min(end, n + len(sig) - 1)
    return a, end


def _tag(s: PackSlice) -> str:
    """" [caller]", " [entry]", ...: how a slice relates to what was asked; a callee,
    the commonest relation, goes untagged (every slice pays for its tag)."""
    return "" if s.relevance == "callee" else f" [{s.relevance}]"


def _signature_block(s: PackSlice, hints: Hints = CLI) -> str:
    sym = s.sym
    where = f"{sym.path}:{sym.lines[0]}-{sym.lines[1]} {sym.kind} {sym.qualname}{_tag(s)}"
    if s.mode == "unchanged":  # the agent holds its code: one line, smaller than its signature
        return f"-- [UNCHANGED] {where}"
    note = ""
    if s.diffed:
        note = " (its change: in the diff below)"
    elif s.cut:
        a, b = sym.lines
        see = f"; see: {hints.read_lines(sym.path, a, b)}" if s.relevance == "entry" else ""
        note = f" (signature only: over the token budget{see})"
    sig = "\n".join("   " + line for line in _signature_text(s).split("\n"))
    return f"-- {where}{note}\n{sig}"


def _signature_text(s: PackSlice) -> str:
    """The signature a signature-mode slice draws (unnumbered)."""
    if s.brief or s.relevance == "contains_diff":  # a changed symbol's lines are in its diff or code
        return _brief_signature(s.sym)
    return s.sym.signature or s.sym.name


def _brief_signature(sym: SymbolSlice) -> str:
    """*sym*'s signature on one line, cut after about `BRIEF_SIGNATURE` tokens ("..." then)."""
    words = " ".join(line.strip() for line in (sym.signature or sym.name).split("\n")).split(" ")
    out: list[str] = []
    used = 0
    for word in words:
        used += count_tokens(word)
        if used > BRIEF_SIGNATURE and out:
            return " ".join(out) + " ..."
        out.append(word)
    return " ".join(out)


def _code_block(s: PackSlice, hints: Hints = CLI) -> str:
    sym = s.sym
    a, b = sym.lines
    wa, wb = s.span
    parts = [f"-- {sym.path}:{a}-{b} {sym.kind} {sym.qualname}{_tag(s)}"]
    if wa > a:
        if s.signature_shown():
            parts.append("   " + _brief_signature(sym))
        parts.append(_hidden_marker(sym.path, a, wa - 1, hints))
    parts += [f"{n:>6}\t{s.lines[n - 1]}" for n in range(wa, wb + 1)]
    if wb < b:
        parts.append(_hidden_marker(sym.path, wb + 1, b, hints))
    return "\n".join(parts)


def _hidden_marker(path: str, start: int, end: int, hints: Hints = CLI) -> str:
    """Names lines a window leaves out, and the request that shows them."""
    return f"   ... not shown: {hints.read_lines(path, start, end)}"


def diff_block(d: dict) -> str:
    if d["diff"] is None:
        return f"-- not shown: {d['summary']}"
    if d["diff"].startswith("--- "):  # its "--- a/PATH" and "+++ b/PATH" lines name the file
        return d["diff"]
    return f"-- diff {d['path']}\n{d['diff']}"


def block_cost(block: str) -> int:
    return count_tokens(block + "\n")


def allocate(slices: list[PackSlice], budget: int, held: Callable[[PackSlice], bool], fixed_cost: int,
             code_first: Iterable[PackSlice], code_later: Iterable[PackSlice],
             fallback_cost: Callable[[PackSlice], int] | None = None, allowance: int | None = None,
             upgrade_limit: Callable[[int], float] | None = None) -> int:
    """Decide each slice's mode under *budget*; returns the tokens spent on slices.

    *code_first* slices are always kept (changed symbols, the entry). Each starts
    in its cheapest form -- code, or what showing it otherwise costs
    (*fallback_cost*: its signature plus its diff; default: its signature) --
    and is upgraded to code, smallest extra cost first, while the budget allows
    (and, with *upgrade_limit*, only when the extra is at most *upgrade_limit(cheapest
    cost)*: a long symbol changed in several far places is shown by its diff).
    Other slices then get signatures in order while they fit, and *code_later*
    ones are upgraded to code with what is left -- at most *allowance* tokens for
    all of them (None: what the budget leaves). No line is sent twice: a slice
    whose lines the code or stubs placed before it already cover is left out,
    and code that overlaps code already placed stays a signature.
    """
    remaining = budget - fixed_cost
    for s in slices:
        if held(s):
            s.mode = "unchanged"
    first = list(code_first)
    upgrades = []
    for s in first:
        if s.mode == "unchanged":
            remaining -= s.signature_cost()
            continue
        code = s.code_cost()
        if fallback_cost is not None:
            other = fallback_cost(s)
        else:
            s.cut = True  # priced as it would be drawn
            other = s.signature_cost()
            s.cut = False
        if code <= other:
            s.mode, remaining = "code", remaining - code
        else:
            s.mode, s.cut, remaining = "signature", True, remaining - other
            upgrades.append((code - other, s))
    for extra, s in sorted(upgrades, key=lambda x: x[0]):
        if upgrade_limit is not None and extra > upgrade_limit(s.code_cost() - extra):
            s.cut, s.diffed = False, True
        elif extra <= remaining:
            s.mode, s.cut, s.upgraded, remaining = "code", False, True, remaining - extra
    placed = {id(s) for s in first}
    covered: dict[str, list[tuple[int, int]]] = {}  # path -> spans the agent gets (code) or holds (stubs)
    for s in first:
        if s.mode in ("code", "unchanged"):
            covered.setdefault(s.sym.path, []).append(s.span if s.mode == "code" else s.sym.lines)
    spare = remaining if allowance is None else max(0, min(remaining, allowance))
    kept: list[PackSlice] = []
    for s in slices:
        if id(s) in placed:
            kept.append(s)
            continue
        if _inside(s.sym.lines, covered.get(s.sym.path, ())):
            continue  # every line of it is in the pack already
        cost = charge = s.signature_cost()
        if allowance is not None and s.mode == "unchanged":  # charged as its signature: a stub
            s.mode = "signature"                              # shrinks the pack, frees nothing
            charge = max(cost, s.signature_cost())
            s.mode = "unchanged"
        if charge <= spare:
            spare, remaining = spare - charge, remaining - cost
            kept.append(s)
    kept_ids = {id(s) for s in kept}
    for s in code_later:
        if id(s) not in kept_ids or s.mode != "signature" or not s.code_ok:
            continue
        if _overlaps(s.sym.lines, covered.get(s.sym.path, ())):
            continue  # those lines are shown once, by the slice placed first
        extra = s.code_cost() - s.signature_cost()
        if extra <= spare:
            s.mode, spare, remaining = "code", spare - extra, remaining - extra
            covered.setdefault(s.sym.path, []).append(s.sym.lines)
        elif extra > remaining:
            s.cut = True
    slices[:] = kept
    return budget - fixed_cost - remaining


def _inside(span: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in spans)


def _overlaps(span: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    return any(a <= span[1] and span[0] <= b for a, b in spans)


def fit(work: list[PackSlice], budget: int, draw: Callable[[], str],
        degrade: Callable[[], bool] | None = None, hints: Hints = CLI) -> str:
    """Draw the pack; while it is over *budget*, take code, then whole slices, from the
    least relevant optional slice; then take back code that was upgraded from a cheaper
    mandatory form; then let *degrade* make one more step smaller (summarize a diff,
    cut a changed symbol to its signature...; False when it has nothing left).

    The budget is a hard cap (PROTOCOL.md): when nothing is left to degrade, every slice
    goes and what remains is cut at the budget with a marker saying so."""
    text = draw()
    while count_tokens(text) > budget:
        optional = [s for s in work if s.relevance not in ("contains_diff", "entry")]
        if not optional:
            upgraded = [s for s in work if s.upgraded and s.mode == "code"]
            if upgraded:
                victim = max(upgraded, key=lambda s: (s.sym.lines[1] - s.sym.lines[0], s.sym.id))
                victim.mode, victim.cut, victim.upgraded = "signature", True, False
            elif degrade is None or not degrade():
                if work:
                    work.clear()  # nothing shown is then recorded as given
                    text = draw()
                    continue
                return _clip(text, budget, hints)
            text = draw()
            continue
        victim = max(optional, key=lambda s: (s.mode == "code", RELEVANCE_ORDER.get(s.relevance, 9), s.depth,
                                              s.sym.path, s.sym.lines[0]))
        if victim.mode == "code":
            victim.mode, victim.cut = "signature", True
        else:
            work.remove(victim)
        text = draw()
    return text


def _clip(text: str, budget: int, hints: Hints = CLI) -> str:
    """The last resort of `fit`: the first lines of *text* that fit, and a marker."""
    marker = f"[pack cut at the token budget: raise {hints.option('budget')}]"
    kept: list[str] = []
    used = count_tokens(marker)
    for line in text.split("\n"):
        cost = count_tokens(line + "\n")
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    out = "\n".join(kept + [marker])
    while out and count_tokens(out) > budget:
        out = out[:-max(1, len(out) // 8)]
    return out


def render(slices: list[PackSlice], diffs: list[dict], footer: str, hints: Hints = CLI) -> str:
    """Stable first: signatures and stubs, then related code, then changing code and diffs.
    Every slice names its file by its repository-relative path, whole: a reader (or a
    tool call) takes a path from any line as it is."""
    def key(s: PackSlice):
        return (s.sym.path, s.sym.lines[0], s.sym.id)

    sigs = sorted((s for s in slices if s.mode != "code"), key=key)
    related = sorted((s for s in slices if s.mode == "code" and s.relevance not in ("contains_diff", "entry")), key=key)
    changing = sorted((s for s in slices if s.mode == "code" and s.relevance in ("contains_diff", "entry")), key=key)
    parts = []
    if sigs:
        parts.append("== signatures ==")
        parts += [_signature_block(s, hints) for s in sigs]
    if related or changing:
        parts.append("== code ==")
        parts += [_code_block(s, hints) for s in related + changing]
    if diffs:
        parts.append("== diffs ==")
        seen: set[str] = set()  # files summarized together share one line
        for d in diffs:
            block = diff_block(d)
            if block not in seen:
                seen.add(block)
                parts.append(block)
    parts.append(footer)
    return "\n".join(parts)


def cache_stats(slices: Sequence[PackSlice]) -> dict:
    hits = sum(1 for s in slices if s.mode == "unchanged")
    misses = sum(1 for s in slices if s.mode == "code")
    return {"hits": hits, "misses": misses, "hit_rate": round(hits / (hits + misses), 4) if hits + misses else 0.0}


def order(slices: list[PackSlice]) -> list[PackSlice]:
    return sorted(slices, key=lambda s: (RELEVANCE_ORDER.get(s.relevance, 9), s.depth, s.sym.path, s.sym.lines[0]))


class PackResult(dict):
    """A pack (the protocol object) that also knows how to confirm its delivery:
    front ends that print it call `commit()` after the write (see `Store.commit`)."""

    def __init__(self, data: dict, commit: Callable[[], None] | None = None):
        super().__init__(data)
        self._commit = commit

    def commit(self) -> None:
        if self._commit is not None:
            self._commit()
            self._commit = None


class Pack:
    """One pack being decided under *budget*: its candidate *slices*, the ones kept (`work`)
    and the text drawn last. Subclasses say what the pack must hold (`decide`), what its
    footer says, which diffs it draws and how it shrinks when nothing optional is left."""

    def __init__(self, slices: list[PackSlice], budget: int, hints: Hints = CLI):
        self.slices = slices
        self.budget = budget
        self.hints = hints  # the front end's words for "see more" (`reads/hints.py`)
        self.work: list[PackSlice] = []
        self.text = ""

    def decide(self, held: Callable[[PackSlice], bool]) -> list[PackSlice]:
        """Choose every slice's form (*held(slice)*: the agent's copy holds its code as it is
        now) and draw the text; returns the slices kept."""
        raise NotImplementedError

    def footer(self) -> str:
        raise NotImplementedError

    def diffs(self) -> list[dict]:
        return []

    def degrade(self) -> bool:
        """One more step smaller once nothing optional is left (see `fit`); False: none."""
        return False

    def draw(self) -> str:
        return render(self.work, self.diffs(), self.footer(), self.hints)

    def fit(self) -> None:
        self.text = fit(self.work, self.budget, self.draw, self.degrade, self.hints)


def with_session(ws, session_id: str | None, delta: bool, fn: Callable[[Callable[[PackSlice], bool]], list[PackSlice]],
                  data_of: Callable[[str], bytes | None], drop: Sequence[str] = (),
                  present: Sequence[str] | AbstractSet[str] | None = None, answer_id: str | None = None):
    """Run *fn(held)* inside the session lock, where *held(slice)* says whether the
    agent's copy holds that symbol's whole code exactly as it is now; then write
    what the pack shows into the copy. Returns (slices, commit or None, answer or None).
    *drop*: paths whose copy the session forgets first (the old names of renamed
    files: a file later made under that name is read plainly, never against the
    record of the file that moved away). Forgetting needs no delivery.

    *present* (the ids of the answers in the model's context, `reads/answers.py`):
    the copy of each file is the fold of exactly those answers, as for a read. With
    it, or with *answer_id*, the pack is kept as an answer of every file it shows
    or vouches for (`answers.pack_effect`), under *answer_id* or a new id; *answer*
    is then `{"answer_id"}`, plus `"leans_on"` (the present answers its stubs vouch
    for) with *present*."""
    store = ws.store_or_none() if delta and session_id is not None else None
    if store is None:
        return fn(lambda s: False), None, None
    from ..engine.sources import split_text_lines
    from ..base.workspace import sha256_hex

    def load(sha: str):
        raw = store.get_object(sha)
        return None if raw is None else split_text_lines(raw.decode("utf-8", "surrogateescape"))

    with store.session(session_id) as session:
        for path in drop:
            session.drop_file(path)
        versions: dict[str, tuple[bytes, str] | None] = {}

        def version(path: str):
            if path not in versions:
                raw = data_of(path)
                versions[path] = None if raw is None else (raw, sha256_hex(raw))
            return versions[path]

        folds: dict = {}

        def folded(path: str):
            if path not in folds:
                from ..reads.answers import fold, in_fold_order

                folds[path] = fold(in_fold_order(present or (), store.answers(path)), load)
            return folds[path]

        def held(s: PackSlice) -> bool:
            v = version(s.sym.path)
            if v is None:
                return False
            a, b = s.sym.lines
            copy = session.copy(s.sym.path) if present is None else folded(s.sym.path).copy
            return copy.holds(a, b, v[1], s.lines, load)

        slices = fn(held)
        intent = session.new_intent(shared=True)
        shown: dict[str, list[tuple[int, int]]] = {}  # code, verbatim and numbered
        confirmed: dict[str, list[tuple[int, int]]] = {}  # [UNCHANGED] stubs: the copy is right there
        headers: dict[str, list[tuple[int, int]]] = {}  # signatures: shown, but not as numbered lines
        for s in slices:
            a, b = s.sym.lines
            if s.mode == "code":
                shown.setdefault(s.sym.path, []).append(s.span)  # a window: those lines only
                if s.signature_shown():
                    headers.setdefault(s.sym.path, []).append(signature_span(s.sym, s.lines))
            elif s.mode == "unchanged":
                confirmed.setdefault(s.sym.path, []).append((a, b))
            else:
                headers.setdefault(s.sym.path, []).append(signature_span(s.sym, s.lines))
        for path in set(shown) | set(confirmed) | set(headers):
            v = version(path)
            if v is None:
                continue
            record_pack_display(store, session, path, v[0], v[1], shown.get(path, []), intent,
                                confirmed=confirmed.get(path, []), headers=headers.get(path, []))
        answer = None
        if present is not None or answer_id is not None:
            answer = _keep_pack_answer(store, version, answer_id, shown, confirmed, headers,
                                       folded if present is not None else None)
        return slices, ((lambda: store.commit(intent)) if shown else None), answer


def _keep_pack_answer(store: Store, version, answer_id: str | None, shown: dict, confirmed: dict, headers: dict,
                      folded) -> dict:
    """Keep the pack as an answer of each file it shows or vouches for (one id for all)."""
    import time

    from ..engine.sources import is_sensitive
    from ..reads.answers import new_answer_id, pack_effect

    paths = sorted(set(shown) | set(confirmed) | set(headers))
    ident = answer_id or new_answer_id({e.id for path in paths for e in store.answers(path)})
    seq = time.time_ns()
    leans: dict[str, None] = {}
    for path in paths:
        v = version(path)
        if v is None or is_sensitive(path, store.settings.sensitive):
            continue
        effect = pack_effect(ident, v[1], shown.get(path, []), [*confirmed.get(path, []), *headers.get(path, [])],
                             seq)
        store.put_object(v[0], v[1])
        store.add_answer(path, effect)
        if folded is not None:
            leans.update(dict.fromkeys(folded(path).leaned_on(effect)))
    return {"answer_id": ident} if folded is None else {"answer_id": ident, "leans_on": list(leans)}


def record_pack_display(store: Store, session: Session, rel: str, data: bytes, sha: str,
                        spans: Iterable[tuple[int, int]], intent: str | None,
                        confirmed: Iterable[tuple[int, int]] = (), headers: Iterable[tuple[int, int]] = ()) -> None:
    """What a context pack showed of *rel* (version *sha*, bytes *data*) goes into the
    agent's copy like any other answer: *spans* of verbatim numbered code are
    written, pending on *intent* until the pack is delivered; *confirmed* spans
    ([UNCHANGED] stubs) were already held and are re-stamped; *headers* (the lines
    of signatures shown without line numbers) void the lines where the copy held
    other text."""
    from ..engine.sources import is_sensitive, split_text_lines

    if is_sensitive(rel, store.settings.sensitive):
        return
    copy = session.copy(rel)
    if headers:
        lines = split_text_lines(data.decode("utf-8", "surrogateescape"))

        def load(version: str) -> list[str] | None:
            if version == sha:
                return lines
            raw = store.get_object(version)
            return None if raw is None else split_text_lines(raw.decode("utf-8", "surrogateescape"))

        for start, end in headers:
            copy = copy.reconciled(start, end, lines, load)
    for start, end in confirmed:
        copy = copy.written(start, end, sha)
    for start, end in spans:
        copy = copy.written(start, end, sha)
        if intent:
            copy = copy.cleared(start, end).with_pending(intent, start, end)
    store.put_object(data, sha)
    session.set_copy(rel, copy)
