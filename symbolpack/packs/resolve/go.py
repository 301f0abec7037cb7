"""Go: imports by module path (the nearest `go.mod`), a package is its directory,
methods of a type anywhere in its package, types from parameters, literals and `NewT()`."""

from __future__ import annotations

import posixpath
import re

from ..records import TYPE_KINDS, ImportBinding, node_text
from .base import Resolver, at_var

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from ...engine.symbols import SymbolSlice


class GoResolver(Resolver):
    family = "go"
    languages = ("go",)

    @staticmethod
    def extract_imports(root):
        return _go_imports(root)

    def module_files(self, facts, module):
        files = self._go_import_files(facts.path, module)
        return (files, []) if files else None

    def package_members(self, facts, name):
        return self._go_package_members(facts.path, name, include_tests=facts.path.endswith("_test.go"))

    def package_types(self, facts, name):
        return [t for t in self._go_package_members(facts.path, name, True) if t.kind in TYPE_KINDS]

    def method_files(self, facts, type_sym):
        return [f for f in (self.graph._facts_observed(p) for p in self._go_package_files(type_sym.path, True))
                if f is not None and f.path != facts.path]

    def hint_patterns(self, var: str):
        v = re.escape(var)
        at = at_var(v)
        pats = [at + r"\s+\*?([A-Za-z_][\w.]*)\s*[,)]",
                at + r"\s*:?=\s*&?([A-Za-z_][\w.]*)\s*\{",
                at + r"\s*:?=\s*(?:(\w+)\.)?New([A-Z]\w*)\s*\("]
        return pats, _pick

    def _go_module_root(self, from_path: str) -> tuple[str, str] | None:
        """(directory of the nearest go.mod, its module path)."""
        d = posixpath.dirname(from_path)
        while True:
            gomod = posixpath.join(d, "go.mod") if d else "go.mod"
            if self.graph._exists(gomod):
                self.graph._sha(gomod)
                data = self.graph.snap.read(gomod) or b""
                m = re.search(rb"^\s*module\s+(\S+)", data, re.M)
                return (d, m.group(1).decode().strip('"')) if m else None
            if not d:
                return None
            d = posixpath.dirname(d)

    def _go_import_files(self, from_path: str, import_path: str) -> list[str]:
        root = self._go_module_root(from_path)
        if root is not None and (import_path == root[1] or import_path.startswith(root[1] + "/")):
            rel = import_path[len(root[1]):].strip("/")
            directory = posixpath.join(root[0], rel) if root[0] else rel
            return self._go_package_files(posixpath.join(directory, "x.go"), False)
        return []

    def _go_package_files(self, path: str, include_tests: bool) -> list[str]:
        return [p for p in self.graph._listdir(posixpath.dirname(path))
                if p.endswith(".go") and (include_tests or not p.endswith("_test.go"))]

    def _go_package_members(self, path: str, name: str, include_tests: bool) -> list[SymbolSlice]:
        out: list[SymbolSlice] = []
        for p in self._go_package_files(path, include_tests):
            facts = self.graph._facts_observed(p)
            if facts is not None:
                out.extend(s for s in facts.by_name.get(name, ()) if s.parent is None and s.kind != "method")
        return out


def _pick(pat: str, groups: list[str]) -> str:
    """`pkg.NewCart(` names `pkg.Cart`; `NewCart(` names `Cart`."""
    if "New" in pat:
        return ".".join(groups) if len(groups) == 2 else groups[-1]
    return groups[0]


def go_default_local(path: str) -> str:
    parts = [p for p in path.split("/") if p]
    last = parts[-1] if parts else path
    if re.fullmatch(r"v\d+", last) and len(parts) > 1:
        last = parts[-2]
    last = re.sub(r"\.v\d+$", "", last)
    return re.sub(r"^go-|-go$", "", last).replace("-", "_").replace(".", "_")


def _go_imports(root) -> tuple[list[ImportBinding], str | None]:
    out: list[ImportBinding] = []
    package = None
    for child in root.named_children:
        if child.type == "package_clause":
            ident = next((c for c in child.named_children if c.type == "package_identifier"), None)
            package = node_text(ident) if ident is not None else None
        elif child.type == "import_declaration":
            specs = [c for c in child.named_children if c.type == "import_spec"]
            for lst in (c for c in child.named_children if c.type == "import_spec_list"):
                specs.extend(c for c in lst.named_children if c.type == "import_spec")
            for spec in specs:
                path_node = spec.child_by_field_name("path")
                if path_node is None:
                    continue
                path = node_text(path_node).strip("\"`")
                name = spec.child_by_field_name("name")
                local = node_text(name) if name is not None else go_default_local(path)
                if local == "_":
                    continue
                out.append(ImportBinding("*" if local == "." else local, path,
                                         "*" if local == "." else None, spec.start_point[0] + 1))
    return out, package
