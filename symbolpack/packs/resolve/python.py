"""Python: `import` / `from ... import` (relative too), modules by dotted path,
bases from the class header, types from annotations, constructor calls, `except ... as`."""

from __future__ import annotations

import posixpath
import re

from ..records import ImportBinding, node_text
from .base import Resolver, at_var


class PythonResolver(Resolver):
    family = "python"
    languages = ("python",)
    follows_star_reexports = True
    observations = ("pymod",)

    def __init__(self, graph):
        super().__init__(graph)
        self._py_modules: dict[str, list[str]] | None = None

    @staticmethod
    def extract_imports(root):
        return _python_imports(root), None

    def observe(self, key: tuple):
        return tuple(self._python_module_index().get(key[1], ()))

    def module_files(self, facts, module):
        files = self._python_module(facts.path, module)
        return (files, []) if files else None

    def member_module(self, binding):
        return _py_join(binding.module, binding.member)

    def signature_bases(self, signature: str) -> list[str]:
        """`class C(Base[T], mod.Mixin, metaclass=M)` -> [Base, mod.Mixin]."""
        text = " ".join(signature.split())
        names: list[str] = []
        start = text.find("(")
        if start < 0:
            return []
        depth = 0
        for i, ch in enumerate(text[start:], start):
            depth += ch in "([{"
            depth -= ch in ")]}"
            if depth == 0:
                inner = text[start + 1:i]
                break
        else:
            return []
        prev = None
        while prev != inner:
            prev, inner = inner, re.sub(r"\[[^\[\]()]*\]|\([^()\[\]]*\)", "", inner)
        for part in inner.split(","):
            part = part.strip()
            if part and "=" not in part and re.fullmatch(r"[\w.]+", part):
                names.append(part)
        return names

    def hint_patterns(self, var: str):
        v = re.escape(var)
        at = at_var(v)
        pats = [at + r"[ \t]*:[ \t]*(?:Optional\[|\"|')?([A-Za-z_][\w.]*)",
                at + r"\s*(?::[^=\n]*)?=\s*([A-Za-z_][\w.]*)\s*\(",
                r"except\s*\(?\s*([A-Za-z_][\w.]*)[^:\n]*?\s+as\s+" + v + r"\b"]
        return pats, None

    def _python_module_index(self) -> dict[str, list[str]]:
        if self._py_modules is None:
            index: dict[str, list[str]] = {}
            for p in self.graph.snap.paths():
                if not p.endswith((".py", ".pyi")):
                    continue
                dotted = p.rsplit(".", 1)[0].replace("/", ".")
                if dotted.endswith(".__init__") or dotted == "__init__":
                    dotted = dotted[: -len("__init__")].rstrip(".")
                parts = dotted.split(".") if dotted else []
                for i in range(len(parts)):
                    index.setdefault(".".join(parts[i:]), []).append(p)
            self._py_modules = index
        return self._py_modules

    def _python_module(self, from_path: str, module: str) -> list[str]:
        if module.startswith("."):
            dots = len(module) - len(module.lstrip("."))
            base = posixpath.dirname(from_path)
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            rest = module[dots:].replace(".", "/")
            stem = posixpath.join(base, rest) if rest else base
            for cand in (stem + ".py", stem + "/__init__.py", stem + ".pyi", stem + "/__init__.pyi"):
                if cand and self.graph._exists(cand.lstrip("/")):
                    return [cand.lstrip("/")]
            return []
        found = self.graph._note(("pymod", module), tuple(self._python_module_index().get(module, ())))
        if len(found) <= 1:
            return list(found)
        # several files end in this dotted path: take the one nearest the root; a tie is ambiguous
        depth = {p: p.count("/") for p in found}
        best = min(depth.values())
        top = [p for p in found if depth[p] == best]
        return top if len(top) == 1 else []


def _python_imports(root) -> list[ImportBinding]:
    out: list[ImportBinding] = []

    def visit(node, depth: int) -> None:
        for child in node.named_children:
            line = child.start_point[0] + 1
            if child.type == "import_statement":
                for n in child.children_by_field_name("name"):
                    if n.type == "aliased_import":
                        out.append(ImportBinding(node_text(n.child_by_field_name("alias")),
                                                 node_text(n.child_by_field_name("name")), None, line))
                    else:
                        out.append(ImportBinding(node_text(n), node_text(n), None, line))
            elif child.type == "import_from_statement":
                module = child.child_by_field_name("module_name")
                mod = "".join(node_text(module).split()) if module is not None else ""
                if any(c.type == "wildcard_import" for c in child.named_children):
                    out.append(ImportBinding("*", mod, "*", line))
                for n in child.children_by_field_name("name"):
                    if n.type == "aliased_import":
                        out.append(ImportBinding(node_text(n.child_by_field_name("alias")), mod,
                                                 node_text(n.child_by_field_name("name")), line))
                    else:
                        out.append(ImportBinding(node_text(n), mod, node_text(n), line))
            elif depth < 4 and child.type in ("if_statement", "try_statement", "with_statement", "block",
                                              "else_clause", "elif_clause", "except_clause", "finally_clause"):
                visit(child, depth + 1)

    visit(root, 0)
    return out


def _py_join(module: str, member: str) -> str:
    return module + member if module.endswith(".") else f"{module}.{member}"
