"""JavaScript / TypeScript: `import`, `export ... from`, `require`, relative module
specs with their extensions and `index` files, `extends` / `implements`, `: Type` and `new`."""

from __future__ import annotations

import posixpath
import re

from ..records import ImportBinding, node_text
from .base import Resolver, at_var, extends_implements

_JS_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts")


class JsResolver(Resolver):
    family = "js"
    languages = ("javascript", "typescript", "tsx")
    follows_star_reexports = True

    @staticmethod
    def extract_imports(root):
        return _js_imports(root), None

    def module_files(self, facts, module):
        files = self._js_module(facts.path, module)
        return (files, []) if files else None

    def signature_bases(self, signature: str) -> list[str]:
        return extends_implements(signature)

    def hint_patterns(self, var: str):
        v = re.escape(var)
        at = at_var(v)
        pats = [at + r"[ \t]*[?!]?[ \t]*:[ \t]*([A-Za-z_$][\w$.]*)",
                at + r"\s*=\s*new\s+([A-Za-z_$][\w$.]*)"]
        return pats, None

    def _js_module(self, from_path: str, spec: str) -> list[str]:
        if not spec.startswith("."):
            return []
        stem = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), spec))
        if stem.startswith(".."):
            return []
        stem = "" if stem == "." else stem
        cands = [stem]
        base, ext = posixpath.splitext(stem)
        if ext in (".js", ".jsx", ".mjs", ".cjs"):
            cands += [base + e for e in (".ts", ".tsx", ".mts", ".cts")]
        cands += [stem + e for e in _JS_EXTS]
        cands += [posixpath.join(stem, "index" + e) for e in _JS_EXTS]
        for c in cands:
            if c and self.graph._exists(c):
                return [c]
        return []


def _string_value(node) -> str | None:
    if node is None or node.type not in ("string", "template_string"):
        return None
    return node_text(node)[1:-1]


def _js_imports(root) -> list[ImportBinding]:
    out: list[ImportBinding] = []
    for child in root.named_children:
        line = child.start_point[0] + 1
        source = _string_value(child.child_by_field_name("source"))
        if child.type == "import_statement" and source is not None:
            for clause in child.named_children:
                if clause.type != "import_clause":
                    continue
                for c in clause.named_children:
                    if c.type == "identifier":
                        out.append(ImportBinding(node_text(c), source, "default", line))
                    elif c.type == "namespace_import":
                        ident = next((x for x in c.named_children if x.type == "identifier"), None)
                        if ident is not None:
                            out.append(ImportBinding(node_text(ident), source, None, line))
                    elif c.type == "named_imports":
                        for spec in c.named_children:
                            if spec.type == "import_specifier":
                                name = spec.child_by_field_name("name")
                                alias = spec.child_by_field_name("alias") or name
                                out.append(ImportBinding(node_text(alias), source, node_text(name), line))
        elif child.type == "export_statement" and source is not None:
            clause = next((c for c in child.named_children if c.type == "export_clause"), None)
            if clause is None:
                ns = next((c for c in child.named_children if c.type == "namespace_export"), None)
                if ns is not None and ns.named_children:
                    out.append(ImportBinding(node_text(ns.named_children[-1]), source, None, line))
                else:
                    out.append(ImportBinding("*", source, "*", line))
            else:
                for spec in clause.named_children:
                    if spec.type == "export_specifier":
                        name = spec.child_by_field_name("name")
                        alias = spec.child_by_field_name("alias") or name
                        out.append(ImportBinding(node_text(alias), source, node_text(name), line))
        elif child.type in ("lexical_declaration", "variable_declaration"):
            for decl in child.named_children:
                if decl.type != "variable_declarator":
                    continue
                value = decl.child_by_field_name("value")
                if value is None or value.type != "call_expression":
                    continue
                fn = value.child_by_field_name("function")
                args = value.child_by_field_name("arguments")
                if fn is None or node_text(fn) != "require" or args is None or not args.named_children:
                    continue
                source = _string_value(args.named_children[0])
                name = decl.child_by_field_name("name")
                if source is None or name is None:
                    continue
                if name.type == "identifier":
                    out.append(ImportBinding(node_text(name), source, None, line))
                elif name.type == "object_pattern":
                    for p in name.named_children:
                        if p.type == "shorthand_property_identifier_pattern":
                            out.append(ImportBinding(node_text(p), source, node_text(p), line))
                        elif p.type == "pair_pattern":
                            key, val = p.child_by_field_name("key"), p.child_by_field_name("value")
                            if key is not None and val is not None and val.type == "identifier":
                                out.append(ImportBinding(node_text(val), source, node_text(key), line))
    return out
