"""Names typed by people and models -> symbols: exact first, then fuzzy (rapidfuzz).

Used by `tldrs search`, `tldrs read --symbol` and `tldrs context ENTRY`, so the
three agree on what "the symbol called X" means. Exact matches (id, qualname,
name, case-insensitively) always beat fuzzy ones; a fuzzy match is taken only
when it is clearly the best, otherwise the caller gets a did-you-mean.
"""

from __future__ import annotations

import re
from collections import namedtuple

from .symbols import SymbolSlice
from ..base.errors import NotFound, UsageError

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Sequence

GOOD_SCORE = 80.0
ACCEPT_SCORE = 88.0


# A namedtuple, not a dataclass: `related` imports this module on the `context` path,
# where the `dataclasses` import costs ~12 ms a process.
class Match(namedtuple("Match", ["symbol", "score"])):
    """A symbol and how well it matches a query (0..100)."""

    __slots__ = ()

    symbol: SymbolSlice
    score: float


def _outermost(hits: list[SymbolSlice]) -> list[SymbolSlice]:
    """*hits* but those inside another hit: a C# or Java class and its constructors share
    the name, and `AutoMapperConfigurationException` was refused as ambiguous (a real
    agent spent a call on it); the class holds them."""
    return [s for s in hits if not any(o is not s and o.path == s.path and o.lines[0] <= s.lines[0]
                                       and s.lines[1] <= o.lines[1] and o.lines != s.lines for o in hits)]


def _exact(query: str, symbols: Sequence[SymbolSlice]) -> list[SymbolSlice]:
    # id, local id (`Qual.name#2`: what a file-scoped lookup gets), qualname, name
    for key in (lambda s: s.id, local_id, lambda s: s.qualname):
        hits = [s for s in symbols if key(s) == query]
        if hits:
            return hits
    hits = _outermost([s for s in symbols if s.name == query])
    if hits:
        return hits
    low = query.lower()
    for key in (lambda s: s.qualname.lower(), lambda s: s.name.lower()):
        hits = [s for s in symbols if key(s) == low]
        if hits:
            return hits
    # a language's own spelling of a qualified name (Ruby's `Jar#initialize`, Rust's and
    # C++'s `a::b`), and a qualified name without its outer scopes (`Helpers.redirect` for
    # `Sinatra.Helpers.redirect`): a model writes what it saw in the code, and a refused
    # name costs it a call (real agents, Ruby episodes)
    # (and JavaScript's `Runner.prototype.hook` for the method `Runner.hook`)
    dotted = re.sub(r"::|#(?=[A-Za-z_])|\.prototype\.", ".", query)
    if "." in dotted:
        for fold in (False, True):
            want = dotted.lower() if fold else dotted
            hits = [s for s in symbols if any(q == want or q.endswith("." + want) for q in _spellings(s.qualname, fold))]
            if hits:
                return hits
    # a name without the `?` its declaration ends in (C#'s `operator byte[]?`, Ruby's
    # `empty?`): three real agents asked for `operator byte[]` and got lines around it
    if not query.endswith("?"):
        hits = [s for s in symbols if s.name.endswith("?") and query in (s.name[:-1], s.qualname[:-1])
                or s.qualname.endswith("?") and s.qualname[:-1].endswith("." + query)]
        if hits:
            return hits
    return []


_IMPL = re.compile(r"\bimpl (?:[^.]* for )?")


def _spellings(qualname: str, fold: bool) -> tuple[str, ...]:
    """A qualname as a model may write it: as it is, and without Rust's `impl ` scope
    (`impl Router.has_routes`, `impl Context for Option.context`: a model writes
    `Router.has_routes`, `Option.context`)."""
    plain = _IMPL.sub("", qualname)
    names = (qualname, plain) if plain != qualname else (qualname,)
    return tuple(n.lower() for n in names) if fold else names


def rank(query: str, symbols: Sequence[SymbolSlice], limit: int = 10) -> list[Match]:
    """Best matches for *query*, exact ones first, each with a 0..100 score."""
    exact = _exact(query, symbols)
    matches = [Match(s, 100.0) for s in exact]
    if len(matches) >= limit:
        return matches[:limit]
    from rapidfuzz import fuzz, process, utils

    seen = {s.id for s in exact}
    choices = {i: f"{s.qualname} {s.id}" for i, s in enumerate(symbols) if s.id not in seen}
    by_qual = process.extract(query, {i: symbols[i].qualname for i in choices}, scorer=fuzz.WRatio,
                              processor=utils.default_process, limit=limit * 3)
    by_id = process.extract(query, {i: symbols[i].id for i in choices}, scorer=fuzz.partial_ratio,
                            processor=utils.default_process, limit=limit * 3)
    best: dict[int, float] = {}
    for _, score, i in by_qual:
        best[i] = max(best.get(i, 0.0), score)
    for _, score, i in by_id:
        best[i] = max(best.get(i, 0.0), score * 0.95)  # a path hit is weaker than a name hit
    ordered = sorted(best.items(), key=lambda kv: (-kv[1], symbols[kv[0]].id))
    matches.extend(Match(symbols[i], round(score, 1)) for i, score in ordered)
    return matches[:limit]


def resolve(query: str, symbols: Sequence[SymbolSlice], where: str = "the repository") -> SymbolSlice:
    """The one symbol *query* names; `NotFound` with suggestions (or `UsageError` when
    ambiguous) otherwise.
    A name shared only by the overloads of one function (`@overload` stubs, then
    the implementation: `f`, `f#2`, ... in one file) names the implementation."""
    impl = _overload_impl(query, symbols)
    if impl is not None:
        return impl
    exact = _exact(query, symbols)
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        listing = ", ".join(s.id for s in exact[:6])
        raise UsageError(f"{query!r} is ambiguous in {where}: {listing}; pass one of these ids")
    ranked = rank(query, symbols, limit=5)
    if ranked and _close_typo(query, ranked[0].symbol) and (
            len(ranked) == 1 or ranked[0].score - ranked[1].score >= 5):
        return ranked[0].symbol
    raise NotFound(no_match_message(query, ranked, where), [m.symbol.qualname for m in ranked[:5]])


def names_exactly(query: str, symbols: Sequence[SymbolSlice]) -> bool:
    """Does *query* name a symbol as it is spelled (an id, a name, a qualified name, an
    overload family), not merely as a near spelling `resolve` would also take?"""
    return bool(_exact(query, symbols)) or _overload_impl(query, symbols) is not None


MOST_NAMED_AT_ONCE = 4


def resolve_all(query: str, symbols: Sequence[SymbolSlice], where: str = "the repository") -> list[SymbolSlice]:
    """Every symbol *query* names, in source order: what `resolve` gives, except that a
    name several definitions share comes back as all of them, not as an error or as
    the first one. The overloads of a method (Java's and Swift's, an extension's
    `impl Request.cURLDescription` beside `Request.cURLDescription`) are one name to a
    model: real agents given one overload for such a name, or a refusal, spent a call
    finding the right one by lines (Alamofire and retrofit episodes). Up to
    `MOST_NAMED_AT_ONCE` same-named definitions in different scopes come back together
    too; more than that stays a refusal that lists their ids. A query that spells out
    which one (`f#2`, `impl Display for T.fmt`) gets that one alone."""
    if _overload_impl(query, symbols) is not None or "#" in query or "impl " in query:
        return [resolve(query, symbols, where)]  # a spelling that picks one (`f#2`, `impl Display for T.fmt`)
    exact = _exact(query, symbols)
    if not exact:
        return [resolve(query, symbols, where)]
    families = {_family(s) for s in exact}
    named = [s for s in symbols if _family(s) in families]
    if len(named) > MOST_NAMED_AT_ONCE and len(families) > 1:
        return [resolve(query, symbols, where)]  # the refusal listing their ids
    return sorted(named, key=lambda s: (s.path, s.lines[0], s.lines[1]))


def local_id(symbol: SymbolSlice) -> str:
    """A symbol's id within its file (`Cart.add`, `f#2`): what a file-scoped lookup takes."""
    return symbol.id.split(":", 2)[-1]


def _family(symbol: SymbolSlice) -> tuple[str, str]:
    """What a symbol's overloads share: its file and its qualname without a repeat's
    `#n` and without Rust's or Swift's `impl ` scope."""
    return symbol.path, _IMPL.sub("", symbol.qualname.split("#")[0])


def _overload_impl(name: str, symbols: Sequence[SymbolSlice]) -> SymbolSlice | None:
    """The implementation among same-named overloads (stubs, then one definition): the
    one with the largest span. Same-named definitions that are more than stubs (a Rust
    macro per `cfg`, a function per platform) are not overloads: the name is the first
    one's local id (`name`, then `name#2`, ...), as ids say; the largest of them was
    arbitrary (real agents given the last of three macros re-read the first by lines)."""
    hits = [s for s in symbols if name in (s.qualname.split("#")[0], s.name)]
    if len(hits) > 1 and len({(s.path, s.qualname.split("#")[0]) for s in hits}) == 1:
        ordered = sorted(hits, key=lambda s: (s.lines[1] - s.lines[0], s.lines[0]))
        # (and the implementation is the longest: C#'s `=> expr` overloads, bodies on their
        # last line alone as stubs have, are each one; the last of two alike was picked
        # for the name, and a real agent asking for both got one)
        if all(_is_stub(s) for s in ordered[:-1]) and (
                ordered[-1].lines[1] - ordered[-1].lines[0] > ordered[-2].lines[1] - ordered[-2].lines[0]):
            return ordered[-1]
    return None


def _is_stub(symbol: SymbolSlice) -> bool:
    """An overload's stub: no body (a TypeScript signature) or a body on the last
    line of the definition alone (Python's `def f(x: int) -> int: ...`)."""
    return symbol.body is None or symbol.body[0] == symbol.body[1] == symbol.lines[1]


def _close_typo(query: str, symbol: SymbolSlice) -> bool:
    """A fuzzy hit is taken without asking only when it is a near spelling of the
    whole name (plain edit ratio), not merely a good partial match."""
    from rapidfuzz import fuzz

    q = query.lower()
    return max(fuzz.ratio(q, symbol.qualname.lower()), fuzz.ratio(q, symbol.name.lower())) >= ACCEPT_SCORE


def no_match_message(query: str, ranked: Sequence[Match], where: str) -> str:
    if not ranked:
        return f"no symbol matches {query!r} in {where}"
    names = ", ".join(list(dict.fromkeys(m.symbol.qualname for m in ranked))[:5])  # a name defined twice: once
    return f"no symbol named {query!r} in {where}; did you mean: {names}?"
