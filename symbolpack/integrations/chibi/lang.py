"""Chibi language plugins: `tldrs chibi lang LANGUAGE` (run by `<home>/plugins/lang_<language>`).

Chibi's indexer (crates/chibi-core/src/index/indexer.rs, chibi 717af12) picks a
language from the file extension, finds the tool named `lang_<language>`, and
sends `{"files": [{"path", "content"}]}` on stdin (today one file per call);
stdout must be `{"symbols": [{"name", "kind", "parent", "line_start", "line_end",
"signature", "visibility"}], "refs": [{"from_line", "to_name", "kind"}]}`. Chibi
resolves `parent` by name among the symbols whose lines contain the child, and
ignores other fields, so every symbol and ref also carries its `path` (a batch
of several files stays readable).

What is answered, and from where:

* symbols: symbolpack's engine, exactly what `tldrs structure` gives for the
  same bytes (the same parse, the same walk rules: a binary, too big or
  sensitive file gets none). `kind` in Chibi's words (docs/plugins.md and the
  lang_rust design in chibi's docs: a method is a `function` with a `parent`;
  Rust `static` and `union`); `parent` is the enclosing symbol's name.
* visibility only where the language itself says it: Rust's `pub` forms
  (Chibi's own lang_rust values: `public`, `private`, `pub(crate)`, ...), Go's
  capitalised names, Dart's `_` names, Elixir's `defp`, JS/TS `#private`
  members, and the access keywords written in the signature (Java, C#,
  Kotlin, Swift, PHP, Scala, TypeScript). Naming conventions (Python's `_x`)
  are not visibility: null.
* refs: the call graph's call sites (`callgraph.CallGraph.file_edges`), resolved
  within the batch; `to_name` is the target's qualified name when resolved,
  else `receiver.name` as written (or the bare name); plus one `import` ref per
  imported name.

Bad input (not JSON, no `files` list, an entry without a string `path` or
`content`) is refused whole: `{"error": ...}` and exit 2. A file whose content
cannot be parsed as text (a NUL byte, over the size limit, not encodable) is
reported in `errors` (with `error` set) next to the other files' symbols, exit 1.
Nothing ever prints a traceback.
"""

from __future__ import annotations

import json
import os
import re
import sys

# symbolpack's language -> Chibi's name for it (indexer.rs LANG_MAP: .sh/.bash are "shell",
# .tsx is "typescript"); every other language keeps its name
CHIBI_NAMES = {"bash": "shell", "tsx": "typescript"}
MAX_INPUT_BYTES = 256 * 1024 * 1024
_KIND = {"method": "function", "constructor": "function"}
_ACCESS = {"public", "private", "protected", "internal", "fileprivate", "open"}
_ACCESS_LANGS = {"java", "csharp", "kotlin", "swift", "php", "scala", "typescript", "tsx"}
_RUST_VIS = re.compile(r"\s*(pub(?:\s*\([^)]*\))?)(?=[\s(]|$)")
_WORD = re.compile(r"[A-Za-z_]\w*")
_DOUBLE_COLON = {"rust", "cpp", "php"}


def plugin_languages() -> dict[str, str]:
    """Chibi language name -> the symbolpack language parsed for it (files whose
    extension says otherwise, like `.tsx` under `typescript`, follow their extension)."""
    from ...engine.languages import supported_languages

    out: dict[str, str] = {}
    for lang in supported_languages():
        name = CHIBI_NAMES.get(lang, lang)
        if name not in out or name == lang:
            out[name] = lang
    return out


def schema(language: str) -> dict:
    return {"name": f"lang_{language}",
            "description": f"Chibi index plugin (symbolpack): symbols and references of {language} files. "
                           f"Called by index_update; not for direct use.",
            "parameters": {"type": "object", "properties": {"files": {
                "type": "array", "items": {"type": "object", "properties": {
                    "path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}}},
                "required": ["files"]}}


class BadInput(Exception):
    pass


def _parse_input(raw: bytes) -> list[tuple[str, str]]:
    if len(raw) > MAX_INPUT_BYTES:
        raise BadInput(f"input is {len(raw):,} bytes, over the {MAX_INPUT_BYTES // 2**20} MB limit")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise BadInput("input is not UTF-8") from None
    except ValueError as exc:
        raise BadInput(f"input is not JSON ({exc})") from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        raise BadInput('input must be {"files": [{"path": ..., "content": ...}, ...]}')
    out = []
    for i, entry in enumerate(files):
        if not isinstance(entry, dict):
            raise BadInput(f"files[{i}] is not an object")
        path, content = entry.get("path"), entry.get("content")
        if not isinstance(path, str) or not path or "\0" in path:
            raise BadInput(f"files[{i}]: path must be a non-empty string")
        if not isinstance(content, str):
            raise BadInput(f"files[{i}] ({path}): content must be a string"
                           + (" (missing)" if "content" not in entry else ""))
        out.append((path, content))
    return out


def visibility(sym, lang: str, kind: str) -> str | None:
    """What the language says about *sym*'s visibility, in Chibi's words, or None."""
    sig = sym.signature or ""
    if lang == "rust":
        if kind == "impl":
            return None
        m = _RUST_VIS.match(sig)
        if not m:
            return "private"
        word = re.sub(r"\s*([()])\s*", r"\1", " ".join(m.group(1).split()))  # `pub ( crate )` -> `pub(crate)`
        return "public" if word == "pub" else word
    if lang == "go":
        return "public" if sym.name[:1].isupper() else "private"
    if lang == "dart":
        return "private" if sym.name.startswith("_") else "public"
    if lang == "elixir":
        head = sig.lstrip().split(None, 1)[0] if sig.strip() else ""
        if head in ("defp", "defmacrop"):
            return "private"
        return "public" if head in ("def", "defmacro") else None
    if lang in ("javascript", "typescript", "tsx") and sym.name.startswith("#"):
        return "private"
    if lang in _ACCESS_LANGS:
        cut = sig.find(sym.name)
        for word in _WORD.findall(sig[:cut] if cut >= 0 else sig.split("(", 1)[0]):
            if word in _ACCESS:
                return word
    return None


def chibi_kind(sym, lang: str) -> str:
    if lang == "rust":
        head = _RUST_VIS.sub("", sym.signature or "", count=1).lstrip()
        if head.startswith("static "):
            return "static"
        if head.startswith("union "):
            return "union"
    return _KIND.get(sym.kind, sym.kind)


def _qualified(sym, lang: str) -> str:
    parts = []
    for part in sym.qualname.split("#", 1)[0].split("."):
        if part.startswith("impl "):  # Rust: `impl Trait for Type` -> Type
            part = part[5:].rsplit(" for ", 1)[-1].split("<", 1)[0].strip()
        parts.append(part)
    return ("::" if lang in _DOUBLE_COLON else ".").join(p for p in parts if p)


class _BatchIndex:
    """The parse of each batch file, once (the call graph asks for symbols again)."""

    def __init__(self, index):
        self.index = index
        self.settings = index.settings
        self.memo: dict[tuple[str, str | None, bytes], object] = {}

    def symbols_for_bytes(self, rel: str, data: bytes, lang: str | None = None, tree=None):
        key = (rel, lang, data)
        if key not in self.memo:
            self.memo[key] = self.index.symbols_for_bytes(rel, data, lang, tree)
        return self.memo[key]


def _snapshot(files: dict[str, bytes]):
    from ...packs.callgraph import Snapshot

    class BatchSnapshot(Snapshot):
        def _list(self):
            return list(files)

        def _read(self, path):
            return files.get(path)

    return BatchSnapshot()


def extract(language: str, files: list[tuple[str, str]]) -> tuple[dict, list[dict]]:
    """({"symbols", "refs"}, per-file errors) for a batch of (path, content)."""
    from pathlib import Path

    from ...packs.callgraph import CallGraph, SELF_NAMES
    from ...engine.index import MAX_INDEX_BYTES, Index
    from ...engine.languages import has_query, language_for_source
    from ...engine.sources import is_sensitive

    fallback = plugin_languages().get(language)
    index = _BatchIndex(Index(Path(os.getcwd()), use_cache=False))
    errors: list[dict] = []
    batch: dict[str, tuple[bytes, str | None]] = {}
    for path, content in files:
        try:
            data = content.encode("utf-8")
        except UnicodeEncodeError:
            errors.append({"path": path, "error": "content is not valid Unicode text"})
            continue
        if "\0" in content:
            errors.append({"path": path, "error": "binary content (a NUL byte); not parsed"})
            continue
        if len(data) > MAX_INDEX_BYTES:
            errors.append({"path": path, "error": f"{len(data):,} bytes, over the "
                                                  f"{MAX_INDEX_BYTES // 2**20} MB limit; not parsed"})
            continue
        lang = language_for_source(path, data)
        if lang is None and has_query(fallback):
            lang = fallback  # no extension to go by: the plugin's own language
        batch[path] = (data, None if is_sensitive(path, index.settings.sensitive) else lang)
    graph = CallGraph(index, _snapshot({p: d for p, (d, _) in batch.items()}))
    symbols: list[dict] = []
    refs: list[dict] = []
    parsed = []
    for path, (data, lang) in batch.items():
        if lang is None or not has_query(lang):
            continue
        fs = index.symbols_for_bytes(path, data, lang)
        parsed.append((path, lang, fs))
        by_id = {s.id: s for s in fs.symbols}
        for s in fs.symbols:
            kind = chibi_kind(s, lang)
            parent = by_id.get(s.parent) if s.parent else None
            symbols.append({"name": s.name, "kind": kind, "parent": parent.name if parent else None,
                            "line_start": s.lines[0], "line_end": s.lines[1], "signature": s.signature,
                            "visibility": visibility(s, lang, kind), "path": path})
    known = {s.id: s for _, _, fs in parsed for s in fs.symbols}
    for path, lang, fs in parsed:
        if not fs.parsed or lang != language_for_source(path, batch[path][0]):
            continue  # the call graph follows the file's own language only
        facts = graph.facts(path)
        sep = "::" if lang in _DOUBLE_COLON else "."
        for b in facts.imports if facts else ():
            name = b.module if not b.member or b.member in ("default", "*") else f"{b.module}{sep}{b.member}"
            refs.append({"from_line": b.line, "to_name": name, "kind": "import", "path": path})
        for e in graph.file_edges(path):
            target = known.get(e.targets[0]) if e.status == "resolved" and e.targets else None
            if target is not None:
                to_name = _qualified(target, lang)
            elif e.receiver and e.receiver != "<expr>" and e.receiver not in SELF_NAMES:
                to_name = f"{e.receiver}{'::' if '::' in e.receiver or lang in _DOUBLE_COLON else '.'}{e.name}"
            else:
                to_name = e.name
            refs.append({"from_line": e.line, "to_name": to_name,
                         "kind": {"class": "type"}.get(e.kind, e.kind), "path": path})
    return {"symbols": symbols, "refs": refs}, errors


def run(language: str, raw: bytes) -> tuple[int, dict]:
    """(exit code, the JSON to print) for one call. Never raises."""
    try:
        if language not in plugin_languages():
            return 2, {"error": f"unknown language {language!r}; symbolpack parses: "
                                f"{', '.join(sorted(plugin_languages()))}"}
        try:
            files = _parse_input(raw)
        except BadInput as exc:
            return 2, {"error": str(exc)}
        out, errors = extract(language, files)
        if errors:
            what = errors[0]["error"] if len(errors) == 1 else f"{len(errors)} files could not be parsed"
            return 1, {"error": f"{errors[0]['path']}: {what}" if len(errors) == 1 else what,
                       "errors": errors, **out}
        return 0, out
    except Exception as exc:
        from ...base.settings import load_settings

        if load_settings().debug:
            import traceback

            traceback.print_exc()
        return 1, {"error": f"internal error: {type(exc).__name__}: {exc}"}


def main(argv: list[str] | None = None) -> int:
    """`tldrs chibi lang LANGUAGE [--schema]`."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-"):
        sys.stdout.write(json.dumps({"error": "usage: tldrs chibi lang LANGUAGE [--schema] < input.json"}) + "\n")
        return 2
    language = argv[0]
    if argv[1:2] == ["--schema"]:
        if language not in plugin_languages():
            sys.stdout.write(json.dumps({"error": f"unknown language {language!r}"}) + "\n")
            return 2
        sys.stdout.write(json.dumps(schema(language)) + "\n")
        return 0
    try:
        raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    except Exception as exc:
        raw = b""
        code, out = 2, {"error": f"cannot read stdin: {exc}"}
    else:
        code, out = run(language, raw)
    try:
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    except Exception:
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
