"""Rust: `use` trees and `mod` declarations, `crate::` / `self::` / `super::` paths
through the crate's files and inline modules, types from `: T` and `let x = T::new()`."""

from __future__ import annotations

import posixpath
import re

from ..records import ImportBinding, node_text
from .base import Resolver, at_var


class RustResolver(Resolver):
    family = "rust"
    languages = ("rust",)

    @staticmethod
    def extract_imports(root):
        return _rust_imports(root), None

    def module_files(self, facts, module):
        return self._rust_module(facts.path, module)

    def member_module(self, binding):
        return f"{binding.module}::{binding.member}" if binding.module else binding.member

    def module_path_fallback(self, facts, recv):
        module_files = self.graph._module_files
        if "::" in recv:
            first, _, rest = recv.partition("::")
            if first in ("crate", "self", "super"):
                return module_files(facts, recv)
            for b in facts.imports:
                if b.local == first:
                    base = b.module if b.member is None else (f"{b.module}::{b.member}" if b.module else b.member)
                    return module_files(facts, f"{base}::{rest}")
            return module_files(facts, recv)
        own = [s for s in facts.by_name.get(recv, ()) if s.kind == "module" and s.parent is None]
        if own:
            return [facts.path], [recv]
        return None

    def hint_patterns(self, var: str):
        v = re.escape(var)
        at = at_var(v)
        pats = [at + r"[ \t]*:[ \t]*&?(?:'\w+[ \t]+)?(?:mut[ \t]+)?([A-Za-z_][\w:]*)",
                r"let\s+(?:mut\s+)?" + v + r"\s*(?::[^=;]*)?=\s*&?(?:mut\s+)?([A-Za-z_][\w:]*?)(?:::\w+\s*\(|\s*\{)"]
        return pats, None

    def _rust_module(self, from_path: str, module: str) -> tuple[list[str], list[str]] | None:
        """(file, inline module path) of a Rust path: `crate::a::b`, `self::x`, `super::y`, `mycrate::z`."""
        segs = [s for s in module.split("::") if s]
        crate = self._rust_crate(from_path)
        if not segs or crate is None:
            return None
        crate_dir, crate_file, crate_name = crate
        if crate_name and segs[0] == crate_name:
            return self._rust_walk(crate_dir, crate_file, segs[1:])
        inside = from_path == crate_file or (from_path.startswith(crate_dir + "/") if crate_dir else True)
        if not inside:  # an integration test, example or bench: its own crate root
            return ([from_path], segs[1:]) if segs[0] in ("crate", "self") else None
        here = _rust_module_path(from_path, crate_dir)
        if segs[0] == "crate":
            return self._rust_walk(crate_dir, crate_file, segs[1:])
        if segs[0] in ("self", "super"):
            base = list(here)
            while segs and segs[0] in ("self", "super"):
                if segs[0] == "super":
                    if not base:
                        return None
                    base.pop()
                segs = segs[1:]
            return self._rust_walk(crate_dir, crate_file, base + segs)
        # a path in scope here (a child or inline module), else from the crate root (2015 paths)
        for base in (here, []):
            found = self._rust_try(crate_dir, crate_file, base, segs)
            if found is not None:
                return found
        return None  # an external crate

    def _rust_try(self, crate_dir: str, crate_file: str, base: list[str], rel: list[str]):
        files, qual = self._rust_walk(crate_dir, crate_file, base + rel)
        base_files, base_qual = self._rust_walk(crate_dir, crate_file, base)
        if files != base_files:
            return files, qual
        facts = self.graph._facts_observed(files[0])
        if facts is not None and facts.by_qual.get(".".join(base_qual + rel[:1])):
            return files, qual
        return None

    def _rust_walk(self, crate_dir: str, crate_file: str, segs: list[str]) -> tuple[list[str], list[str]]:
        file, directory = crate_file, crate_dir
        qual: list[str] = []
        for seg in segs:
            if not qual:
                for cand in (posixpath.join(directory, seg + ".rs"), posixpath.join(directory, seg, "mod.rs")):
                    if self.graph._exists(cand):
                        file, directory = cand, posixpath.join(directory, seg)
                        break
                else:
                    qual.append(seg)
                continue
            qual.append(seg)
        return [file], qual

    def _rust_crate(self, from_path: str) -> tuple[str, str, str | None] | None:
        """(source dir, root file, crate name) of the crate *from_path* belongs to."""
        d = posixpath.dirname(from_path)
        while True:
            manifest = posixpath.join(d, "Cargo.toml")
            if self.graph._exists(manifest):
                src = posixpath.join(d, "src")
                for f in ("lib.rs", "main.rs"):
                    if self.graph._exists(posixpath.join(src, f)):
                        self.graph._sha(manifest)
                        data = (self.graph.snap.read(manifest) or b"").decode("utf-8", "replace")
                        m = re.search(r'\[package\][^\[]*?^\s*name\s*=\s*"([^"]+)"', data, re.M | re.S)
                        name = m.group(1).replace("-", "_") if m else None
                        return src, posixpath.join(src, f), name
            for f in ("lib.rs", "main.rs"):
                if self.graph._exists(posixpath.join(d, f)):
                    return d, posixpath.join(d, f), None
            if not d:
                return None
            d = posixpath.dirname(d)


def _rust_module_path(path: str, crate_dir: str) -> list[str]:
    rel = path[len(crate_dir):].lstrip("/") if crate_dir else path
    parts = rel[:-3].split("/") if rel.endswith(".rs") else rel.split("/")
    if parts and parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return [p for p in parts if p]


def _rust_imports(root) -> list[ImportBinding]:
    out: list[ImportBinding] = []

    def segs(node) -> list[str]:
        return [s for s in "".join(node_text(node).split()).split("::") if s] if node is not None else []

    def flatten(node, prefix: list[str], line: int) -> None:
        t = node.type
        if t == "use_as_clause":
            path = prefix + segs(node.child_by_field_name("path"))
            alias = node.child_by_field_name("alias")
            if path:
                out.append(ImportBinding(node_text(alias) if alias is not None else path[-1],
                                         "::".join(path[:-1]), path[-1], line))
        elif t == "scoped_use_list":
            new = prefix + segs(node.child_by_field_name("path"))
            lst = node.child_by_field_name("list")
            if lst is not None:
                flatten(lst, new, line)
        elif t == "use_list":
            for c in node.named_children:
                flatten(c, prefix, line)
        elif t == "use_wildcard":
            first = node.named_children[0] if node.named_children else None
            path = prefix + segs(first)
            out.append(ImportBinding("*", "::".join(path), "*", line))
        elif t == "self":
            if prefix:
                out.append(ImportBinding(prefix[-1], "::".join(prefix), None, line))
        else:
            path = prefix + segs(node)
            if path:
                out.append(ImportBinding(path[-1], "::".join(path[:-1]), path[-1], line))

    def visit(node, depth: int) -> None:
        for child in node.named_children:
            line = child.start_point[0] + 1
            if child.type == "use_declaration":
                arg = child.child_by_field_name("argument")
                if arg is not None:
                    flatten(arg, [], line)
            elif child.type == "mod_item" and child.child_by_field_name("body") is None:
                name = child.child_by_field_name("name")
                if name is not None:
                    out.append(ImportBinding(node_text(name), "self::" + node_text(name), None, line))
            elif child.type in ("function_item", "mod_item", "impl_item") and depth < 2:
                body = child.child_by_field_name("body")
                if body is not None and child.type == "function_item":
                    visit(body, depth + 1)  # `use` inside a function body

    visit(root, 0)
    return out
