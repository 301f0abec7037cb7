"""The `Resolver` interface and the helpers every language family's resolver uses.

A resolver answers what differs by language (imports, modules, type hints) for
the graph (`callgraph`), which it sees only through `GraphView`: the graph
imports the resolvers, never the other way round.
"""

from __future__ import annotations

import re

from ..records import TYPE_ARGS

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Callable, Iterable

    from typing import Protocol

    from ...engine.symbols import SymbolSlice
    from ...state.snapshot import Snapshot
    from ..records import FileFacts, ImportBinding

    class GraphView(Protocol):
        """What a resolver asks of the graph it serves (`callgraph.CallGraph`, which
        imports the resolvers): the snapshot, and lookups noted as the observations
        cached edges are checked against."""

        snap: Snapshot

        def _note(self, key: tuple, value): ...
        def _sha(self, path: str) -> str | None: ...
        def _exists(self, path: str) -> bool: ...
        def _listdir(self, directory: str) -> tuple[str, ...]: ...
        def _facts_observed(self, path: str) -> FileFacts | None: ...
        def _module_files(self, facts: FileFacts, module: str) -> tuple[list[str], list[str]] | None: ...


class Resolver:
    """The defaults: a language whose imports, modules and types we do not model."""

    family: str | None = None
    languages: tuple[str, ...] = ()
    follows_star_reexports = False  # `export * from` / `from m import *` re-export a module's names
    observations: tuple[str, ...] = ()  # observation kinds `observe` answers (see CallGraph._observe)

    def __init__(self, graph: GraphView):
        self.graph = graph

    # -- facts (from one file's syntax tree; no graph)
    @staticmethod
    def extract_imports(root) -> tuple[list[ImportBinding], str | None]:
        """Import bindings and package declared in a file's syntax tree."""
        return [], None

    # -- observations
    def observe(self, key: tuple):
        """The current value of an observation of one of `observations`."""
        raise KeyError(key[0])

    # -- modules
    def module_files(self, facts: FileFacts, module: str) -> tuple[list[str], list[str]] | None:
        """(files, inner qualname prefix) of a module spec written in *facts*, or None."""
        return None

    def member_module(self, binding: ImportBinding) -> str | None:
        """The module spec a name imported as a member stands for when used as a
        receiver (`from pkg import mod; mod.f()`), or None when it is no module."""
        return None

    def module_path_fallback(self, facts: FileFacts, recv: str) -> tuple[list[str], list[str]] | None:
        """*recv* as a module path no import binds (Rust `crate::a`, inline modules)."""
        return None

    # -- names
    def package_members(self, facts: FileFacts, name: str) -> list[SymbolSlice]:
        """A bare *name* defined elsewhere in *facts*' package (Go, Java)."""
        return []

    def package_types(self, facts: FileFacts, name: str) -> list[SymbolSlice]:
        """Types *name* in *facts*' package, after local and imported ones failed."""
        return []

    def file_members(self, facts: FileFacts, name: str) -> list[SymbolSlice]:
        """Importable *name* of a file when no top-level symbol has it (Java statics)."""
        return []

    # -- types
    def method_files(self, facts: FileFacts, type_sym: SymbolSlice) -> list[FileFacts]:
        """Other files that may hold methods of *type_sym* (defined in *facts*)."""
        return []

    def signature_bases(self, signature: str) -> list[str]:
        """Base type names written in a type's header."""
        return []

    def hint_patterns(self, var: str) -> tuple[list[str], Callable[[str, list[str]], str] | None]:
        """Regexes whose first group names a type written for variable *var* (an
        annotation, a constructor call), and the *pick* of `collect_hints` when a
        pattern has several groups."""
        return [], None

    def type_hints(self, var: str, text: str) -> list[str]:
        """Type names written for variable *var* in *text*, the last one first."""
        patterns, pick = self.hint_patterns(var)
        return collect_hints(patterns, text, pick)


def at_var(v: str) -> str:
    """The escaped variable *v* with no identifier character or `.` right before it,
    written literal first (`v(?<![\\w$.]v)`, not `(?<![\\w$.])v`): a pattern that starts
    with a literal lets the regex engine skip to it, 25 times faster on a 120 kB file."""
    return v + r"(?<![\w$.]" + v + ")"


def hint_matches(patterns: Iterable[str], text: str, pick=None) -> list[tuple[int, int, str]]:
    """Every match of *patterns* in *text* as (start, end, name), pattern by pattern:
    the name the first group catches, or *pick(pattern, groups)* when a pattern has several."""
    found: list[tuple[int, int, str]] = []
    for pat in patterns:
        for m in re.finditer(pat, text):
            groups = [g for g in m.groups() if g]
            name = pick(pat, groups) if pick is not None else groups[0]
            found.append((m.start(), m.end(), name.strip(".")))
    return found


def ordered_hints(matches: Iterable[tuple[int, int, str]]) -> list[str]:
    """The names of `hint_matches`, the last one in the text first."""
    return [n for _, _, n in sorted(matches, key=lambda x: -x[0])
            if n not in ("self", "this", "mut", "dyn", "impl")]


def collect_hints(patterns: Iterable[str], text: str, pick=None) -> list[str]:
    """The type names *patterns* catch in *text*, the last one first."""
    return ordered_hints(hint_matches(patterns, text, pick))


def extends_implements(signature: str) -> list[str]:
    """`class C extends B<T> implements I, J` -> [B, I, J] (JS/TS, Java)."""
    text = " ".join(signature.split())
    names: list[str] = []
    prev = None
    while prev != text:
        prev, text = text, TYPE_ARGS.sub("", text)
    for m in re.finditer(r"\b(?:extends|implements)\s+([\w$.]+(?:\s*,\s*[\w$.]+)*)", text):
        names += [n.strip() for n in m.group(1).split(",") if n.strip()]
    return names
