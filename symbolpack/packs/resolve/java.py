"""Java: `import` (single, static, on demand) and `package`, classes by file path,
a package's other classes, static members, `extends` / `implements`, `T x = ...` and `new`."""

from __future__ import annotations

import posixpath
import re

from ..records import TYPE_KINDS, ImportBinding, node_text
from .base import Resolver, at_var, extends_implements

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from ..records import FileFacts
    from ...engine.symbols import SymbolSlice


class JavaResolver(Resolver):
    family = "java"
    languages = ("java",)
    observations = ("javacls", "javapkg")

    def __init__(self, graph):
        super().__init__(graph)
        self._java_classes: dict[str, list[str]] | None = None

    @staticmethod
    def extract_imports(root):
        return _java_imports(root)

    def observe(self, key: tuple):
        if key[0] == "javacls":
            return tuple(self._java_class_index().get(key[1], ()))
        return self._java_package_dirs(key[1])

    def module_files(self, facts, module):
        files = self._java_class_files(module)
        if not files:  # a package (wildcard import): its directory
            files = self._java_package_files(module)
        return (files, []) if files else None

    def package_members(self, facts, name):
        return self._java_same_package_class(facts, name)

    def package_types(self, facts, name):
        return [t for t in self._java_same_package_class(facts, name) if t.kind in TYPE_KINDS]

    def file_members(self, facts, name):
        """Static members of the file's class."""
        tops = {s.id for s in facts.symbols if s.parent is None}
        return [s for s in facts.by_name.get(name, ()) if s.parent in tops]

    def signature_bases(self, signature: str) -> list[str]:
        return extends_implements(signature)

    def hint_patterns(self, var: str):
        v = re.escape(var)
        at = at_var(v)
        pats = [r"([A-Z][\w.]*)(?:<[^;()=]*?>)?(?:\[\])?\s+" + v + r"\s*[=;,)]",
                at + r"\s*=\s*new\s+([A-Z][\w.]*)"]
        return pats, None

    def _java_class_index(self) -> dict[str, list[str]]:
        if self._java_classes is None:
            index: dict[str, list[str]] = {}
            for p in self.graph.snap.paths():
                if p.endswith(".java"):
                    parts = p[:-5].split("/")
                    for i in range(len(parts)):
                        index.setdefault(".".join(parts[i:]), []).append(p)
            self._java_classes = index
        return self._java_classes

    def _java_class_files(self, dotted: str) -> list[str]:
        found = self.graph._note(("javacls", dotted), tuple(self._java_class_index().get(dotted, ())))
        if len(found) == 1:
            return list(found)
        if "." in dotted:  # a nested class `a.b.Outer.Inner`: the file of `a.b.Outer`
            outer = dotted.rsplit(".", 1)[0]
            found = self.graph._note(("javacls", outer), tuple(self._java_class_index().get(outer, ())))
            return list(found) if len(found) == 1 else []
        return []

    def _java_package_dirs(self, package: str) -> tuple[str, ...]:
        suffix = package.replace(".", "/")
        return tuple(sorted({posixpath.dirname(p) for p in self.graph.snap.paths() if p.endswith(".java")
                             and (posixpath.dirname(p) == suffix or posixpath.dirname(p).endswith("/" + suffix))}))

    def _java_package_files(self, package: str) -> list[str]:
        dirs = self.graph._note(("javapkg", package), self._java_package_dirs(package))
        if len(dirs) != 1:
            return []
        return [p for p in self.graph._listdir(dirs[0]) if p.endswith(".java")]

    def _java_same_package_class(self, facts: FileFacts, name: str) -> list[SymbolSlice]:
        directory = posixpath.dirname(facts.path)
        path = posixpath.join(directory, name + ".java").lstrip("/")
        if not self.graph._exists(path):
            for b in facts.imports:
                if b.member == "*":
                    files = self._java_class_files(f"{b.module}.{name}")
                    if files:
                        path = files[0]
                        break
            else:
                return []
        other = self.graph._facts_observed(path)
        return [s for s in other.by_name.get(name, ()) if s.parent is None] if other else []


_JAVA_IMPORT = re.compile(r"import\s+(static\s+)?([\w.\s]+?)(\s*\.\s*\*)?\s*;")


def _java_imports(root) -> tuple[list[ImportBinding], str | None]:
    out: list[ImportBinding] = []
    package = None
    for child in root.named_children:
        if child.type == "package_declaration":
            m = re.search(r"package\s+([\w.\s]+?)\s*;", node_text(child))
            package = "".join(m.group(1).split()) if m else None
        elif child.type == "import_declaration":
            m = _JAVA_IMPORT.search(node_text(child))
            if not m:
                continue
            name = "".join(m.group(2).split())
            line = child.start_point[0] + 1
            if m.group(3):
                out.append(ImportBinding("*", name, "*", line))
            elif m.group(1):  # import static a.b.C.m
                cls, _, member = name.rpartition(".")
                out.append(ImportBinding(member, cls, member, line))
            else:  # the class, as the member of its own file
                out.append(ImportBinding(name.rsplit(".", 1)[-1], name, name.rsplit(".", 1)[-1], line))
    return out, package
