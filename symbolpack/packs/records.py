"""The values a file's facts are made of: call sites, import bindings, `FileFacts`.

Extraction (`facts`), the language resolvers (`resolve/`) and the graph
(`callgraph`) all speak in these; they live below all three so that none of
them imports another only for a type.
"""

from __future__ import annotations

import re
from collections import namedtuple

from ..engine.symbols import CLASS_LIKE, SymbolSlice, split_lines

EDGE_KINDS = frozenset({"call", "class", "macro"})
TYPE_KINDS = CLASS_LIKE | {"type"}
CALLABLE_KINDS = frozenset({"function", "method", "constructor", "macro"})
_GENERIC_ARGS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")
TYPE_ARGS = re.compile(r"<[^<>]*>")


# Values here are namedtuples and a plain class, not dataclasses: this module is
# on the start-up path of every `diff-context` and `context` process, where the
# `dataclasses` import (inspect, ast, dis, tokenize) and dataclass creation cost
# ~12 ms.
class CallSite(namedtuple("CallSite", ["name", "line", "kind", "receiver"])):
    """One use of a name: `receiver.name(...)` (receiver None for a bare name)."""

    __slots__ = ()

    name: str
    line: int
    kind: str  # call | class | macro
    receiver: str | None  # "<expr>" when it is not a plain name path


class ImportBinding(namedtuple("ImportBinding", ["local", "module", "member", "line"])):
    """A name a file binds by importing: `local` stands for `member` of `module`."""

    __slots__ = ()

    local: str  # "*" for a wildcard import
    module: str  # as written: "..pkg.mod", "./util", "github.com/a/b", "crate::a", "a.b.C"
    member: str | None  # None when the module itself is bound; "default" for JS default imports
    line: int


class FileFacts:
    """Symbols, call sites, imports and package of one file's bytes (never changed once
    built; the indexes below are computed on first use)."""

    __slots__ = ("path", "language", "sha256", "data", "symbols", "calls", "imports", "package", "parsed",
                 "_lines", "_by_id", "_by_name", "_by_qual")

    def __init__(self, path: str, language: str | None, sha256: str, data: bytes,
                 symbols: tuple[SymbolSlice, ...] = (), calls: tuple[CallSite, ...] = (),
                 imports: tuple[ImportBinding, ...] = (), package: str | None = None,
                 parsed: bool = False) -> None:
        self.path = path
        self.language = language
        self.sha256 = sha256
        self.data = data
        self.symbols = symbols
        self.calls = calls
        self.imports = imports
        self.package = package
        self.parsed = parsed
        self._lines: list[bytes] | None = None
        self._by_id: dict[str, SymbolSlice] | None = None
        self._by_name: dict[str, list[SymbolSlice]] | None = None
        self._by_qual: dict[str, list[SymbolSlice]] | None = None

    @property
    def lines(self) -> list[bytes]:
        if self._lines is None:
            self._lines = split_lines(self.data)
        return self._lines

    @property
    def by_id(self) -> dict[str, SymbolSlice]:
        if self._by_id is None:
            self._by_id = {s.id: s for s in self.symbols}
        return self._by_id

    @property
    def by_name(self) -> dict[str, list[SymbolSlice]]:
        if self._by_name is None:
            out: dict[str, list[SymbolSlice]] = {}
            for s in self.symbols:
                out.setdefault(s.name, []).append(s)
            self._by_name = out
        return self._by_name

    @property
    def by_qual(self) -> dict[str, list[SymbolSlice]]:
        if self._by_qual is None:
            out: dict[str, list[SymbolSlice]] = {}
            for s in self.symbols:
                out.setdefault(base_qual(s.qualname), []).append(s)
            self._by_qual = out
        return self._by_qual

    def innermost(self, line: int) -> SymbolSlice | None:
        """The smallest symbol whose span holds *line*."""
        best = None
        for s in self.symbols:
            if s.lines[0] <= line <= s.lines[1]:
                if best is None or s.lines[1] - s.lines[0] <= best.lines[1] - best.lines[0]:
                    best = s
        return best


def base_qual(qualname: str) -> str:
    return qualname.split("#", 1)[0]


def type_name(text: str) -> str:
    """`impl Display for Cart<T>` -> `Cart`; `Pair[K]` -> `Pair`; `a.b.Outer.Inner` -> `Inner`."""
    text = text.strip()
    if text.startswith("impl "):
        text = text[5:]
        if " for " in text:
            text = text.rsplit(" for ", 1)[1]
    prev = None
    while prev != text:
        prev, text = text, _GENERIC_ARGS.sub("", text)
    text = text.strip().lstrip("*&").strip()
    return re.split(r"\.|::", text)[-1].strip() if text else text


def owner_type(sym: SymbolSlice, facts: FileFacts) -> SymbolSlice | str | None:
    """The type a method belongs to: its enclosing class-like symbol, or (Go
    receivers, C++ `Type::m`) the type named in its qualname."""
    parent = facts.by_id.get(sym.parent) if sym.parent else None
    while parent is not None:
        if parent.kind in CLASS_LIKE:
            return parent
        parent = facts.by_id.get(parent.parent) if parent.parent else None
    if sym.kind in ("method", "constructor") and "." in base_qual(sym.qualname):
        return type_name(base_qual(sym.qualname).rsplit(".", 1)[0])
    return None


def node_text(node) -> str:
    return node.text.decode("utf-8", "replace")
