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

import shlex
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from .related import RELEVANCE_ORDER
from .symbols import SymbolSlice
from .tokens import count_tokens

HEADER_TOKENS = 15  # the "== signatures ==", "== code ==", "== diffs ==" lines


@dataclass
class PackSlice:
    """A symbol in a pack and how it is shown: code, signature, or `[UNCHANGED]` stub."""

    sym: SymbolSlice
    relevance: str
    lines: Sequence[str]  # the file's lines, decoded
    depth: int = 0
    mode: str = "signature"  # code | signature | unchanged
    cut: bool = False  # wanted code, the budget said no
    code_ok: bool = True  # False for a class reached by a call: its constructor carries the code
    upgraded: bool = False  # code chosen over a cheaper mandatory form (signature + diff)
    _code_cost: int | None = field(default=None, repr=False)
    _sig_cost: dict = field(default_factory=dict, repr=False)

    def code_cost(self) -> int:
        if self._code_cost is None:
            self._code_cost = block_cost(_code_block(self))
        return self._code_cost

    def signature_cost(self) -> int:
        key = (self.mode == "unchanged", self.cut)
        if key not in self._sig_cost:
            self._sig_cost[key] = block_cost(_signature_block(self))
        return self._sig_cost[key]

    @property
    def code(self) -> str:
        a, b = self.sym.lines
        return "\n".join(self.lines[a - 1:b])

    def to_json(self) -> dict:
        s = self.sym
        return {"id": s.id, "path": s.path, "kind": s.kind, "signature": s.signature,
                "lines": list(s.lines), "code": self.code if self.mode == "code" else None,
                "etag": s.etag, "relevance": self.relevance}

def _signature_block(s: PackSlice) -> str:
    sym = s.sym
    tag = f" [{s.relevance}]"
    if s.mode == "unchanged":
        head = f"-- [UNCHANGED] {sym.path}:{sym.lines[0]}-{sym.lines[1]} {sym.kind} {sym.qualname}{tag}: " \
               "code as given earlier in this session"
    else:
        cut = ""
        if s.cut:
            a, b = sym.lines
            see = f"; see: tldrs read {shlex.quote(sym.path)} --offset {a} --limit {b - a + 1}" \
                if s.relevance == "entry" else ""
            cut = f" (signature only: over the token budget{see})"
        head = f"-- {sym.path}:{sym.lines[0]}-{sym.lines[1]} {sym.kind} {sym.qualname}{tag}{cut}"
    sig = "\n".join("   " + line for line in (sym.signature or sym.name).split("\n"))
    return f"{head}\n{sig}"


def _code_block(s: PackSlice) -> str:
    sym = s.sym
    a, b = sym.lines
    body = "\n".join(f"{n:>6}\t{s.lines[n - 1]}" for n in range(a, b + 1))
    return f"-- {sym.path}:{a}-{b} {sym.kind} {sym.qualname} [{s.relevance}]\n{body}"


def diff_block(d: dict) -> str:
    if d["diff"] is None:
        return f"-- not shown: {d['summary']}"
    return f"-- diff {d['path']}\n{d['diff']}"


def block_cost(block: str) -> int:
    return count_tokens(block + "\n")


def allocate(slices: list[PackSlice], budget: int, held: Callable[[PackSlice], bool], fixed_cost: int,
             code_first: Iterable[PackSlice], code_later: Iterable[PackSlice],
             fallback_cost: Callable[[PackSlice], int] | None = None) -> int:
    """Decide each slice's mode under *budget*; returns the tokens spent on slices.

    *code_first* slices are always kept (changed symbols, the entry). Each starts
    in its cheapest form -- code, or what showing it otherwise costs
    (*fallback_cost*: its signature plus its diff; default: its signature) --
    and is upgraded to code, smallest extra cost first, while the budget allows.
    Other slices then get signatures in order while they fit, and *code_later*
    ones are upgraded to code with what is left.
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
        if extra <= remaining:
            s.mode, s.cut, s.upgraded, remaining = "code", False, True, remaining - extra
    placed = {id(s) for s in first}
    kept: list[PackSlice] = []
    for s in slices:
        if id(s) in placed:
            kept.append(s)
            continue
        cost = s.signature_cost()
        if cost <= remaining:
            remaining -= cost
            kept.append(s)
    kept_ids = {id(s) for s in kept}
    for s in code_later:
        if id(s) not in kept_ids or s.mode != "signature" or not s.code_ok:
            continue
        extra = s.code_cost() - s.signature_cost()
        if extra <= remaining:
            s.mode, remaining = "code", remaining - extra
        else:
            s.cut = True
    slices[:] = kept
    return budget - fixed_cost - remaining


def fit(work: list[PackSlice], budget: int, draw: Callable[[], str],
        degrade: Callable[[], bool] | None = None) -> str:
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
                return _clip(text, budget)
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


def _clip(text: str, budget: int) -> str:
    """The last resort of `fit`: the first lines of *text* that fit, and a marker."""
    marker = "[pack cut at the token budget: raise --budget]"
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


def render(slices: list[PackSlice], diffs: list[dict], footer: str) -> str:
    """Stable first: signatures and stubs, then related code, then changing code and diffs."""
    def key(s: PackSlice):
        return (s.sym.path, s.sym.lines[0], s.sym.id)

    sigs = sorted((s for s in slices if s.mode != "code"), key=key)
    related = sorted((s for s in slices if s.mode == "code" and s.relevance not in ("contains_diff", "entry")), key=key)
    changing = sorted((s for s in slices if s.mode == "code" and s.relevance in ("contains_diff", "entry")), key=key)
    parts = []
    if sigs:
        parts.append("== signatures ==")
        parts += [_signature_block(s) for s in sigs]
    if related or changing:
        parts.append("== code ==")
        parts += [_code_block(s) for s in related + changing]
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

    def __init__(self, slices: list[PackSlice], budget: int):
        self.slices = slices
        self.budget = budget
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
        return render(self.work, self.diffs(), self.footer())

    def fit(self) -> None:
        self.text = fit(self.work, self.budget, self.draw, self.degrade)


def with_session(ws, session_id: str | None, delta: bool, fn: Callable[[Callable[[PackSlice], bool]], list[PackSlice]],
                  data_of: Callable[[str], bytes | None], drop: Sequence[str] = ()):
    """Run *fn(held)* inside the session lock, where *held(slice)* says whether the
    agent's copy holds that symbol's whole code exactly as it is now; then write
    what the pack shows into the copy. Returns (slices, commit or None).
    *drop*: paths whose copy the session forgets first (the old names of renamed
    files: a file later made under that name is read plainly, never against the
    record of the file that moved away). Forgetting needs no delivery."""
    store = ws.store_or_none() if delta and session_id is not None else None
    if store is None:
        return fn(lambda s: False), None
    from .sources import split_text_lines
    from .workspace import sha256_hex

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

        def held(s: PackSlice) -> bool:
            v = version(s.sym.path)
            if v is None:
                return False
            a, b = s.sym.lines
            return session.copy(s.sym.path).holds(a, b, v[1], s.lines, load)

        slices = fn(held)
        from .operations import record_pack_display

        intent = session.new_intent(shared=True)
        shown: dict[str, list[tuple[int, int]]] = {}  # code, verbatim and numbered
        confirmed: dict[str, list[tuple[int, int]]] = {}  # [UNCHANGED] stubs: the copy is right there
        headers: dict[str, list[tuple[int, int]]] = {}  # signatures: shown, but not as numbered lines
        for s in slices:
            a, b = s.sym.lines
            if s.mode == "code":
                shown.setdefault(s.sym.path, []).append((a, b))
            elif s.mode == "unchanged":
                confirmed.setdefault(s.sym.path, []).append((a, b))
            else:
                body = s.sym.body
                headers.setdefault(s.sym.path, []).append((a, body[0] - 1 if body and body[0] > a else a))
        for path in set(shown) | set(confirmed) | set(headers):
            v = version(path)
            if v is None:
                continue
            record_pack_display(store, session, path, v[0], v[1], shown.get(path, []), intent,
                                confirmed=confirmed.get(path, []), headers=headers.get(path, []))
        return slices, ((lambda: store.commit(intent)) if shown else None)
