"""Which language a file is, and the compiled tree-sitter parser and query for it.

Languages are data, not code: a language is supported when `queries/<lang>.scm`
exists and `tree-sitter-language-pack` bundles its grammar. Adding one is one
`.scm` file plus a fixture test; nothing here changes except, for a new file
extension, one line of `EXTENSIONS`.

Grammars and queries are loaded lazily and memoised per process: the CLI's
start-up path (`tldrs --version`, hooks) must never pay for them.
"""

from __future__ import annotations

import functools
import os

from ..base.errors import NotFound

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import PurePath
    from typing import TypeGuard

    from tree_sitter import Language, Parser, Query

# Bump when the meaning of cached symbol records changes (span rules, fields).
ENGINE_VERSION = "4"

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp",
    ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp",
    ".cs": "csharp",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby",
    ".php": "php",
    ".kt": "kotlin", ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala", ".sc": "scala",
    ".sh": "bash", ".bash": "bash", ".zsh": "bash",
    ".lua": "lua",
    ".ex": "elixir", ".exs": "elixir",
    ".hs": "haskell",
    ".ml": "ocaml", ".mli": "ocaml_interface",
    ".zig": "zig",
    ".dart": "dart",
    ".r": "r", ".R": "r",
    ".jl": "julia",
    ".erl": "erlang", ".hrl": "erlang",
    ".clj": "clojure", ".cljs": "clojure", ".cljc": "clojure",
    ".elm": "elm",
    ".nim": "nim",
    ".pl": "perl", ".pm": "perl",
    ".m": "objc",
    ".vue": "vue", ".svelte": "svelte",
    ".sql": "sql",
    ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".json": "json",
    ".md": "markdown", ".html": "html", ".css": "css", ".scss": "scss",
}

FILENAMES: dict[str, str] = {
    "Rakefile": "ruby", "Gemfile": "ruby", "Makefile": "make",
    "Dockerfile": "dockerfile", "CMakeLists.txt": "cmake",
}


def language_for_path(path: str | PurePath) -> str | None:
    """The tree-sitter language name for *path*, or None when we do not know it."""
    name = path.rpartition("/")[2] if isinstance(path, str) else ""
    if name in ("", ".", ".."):  # not a plain last component: let pathlib normalise it
        from pathlib import PurePath  # not at import: a read that parses never needs it

        name = PurePath(path).name
    lang = FILENAMES.get(name)
    if lang:
        return lang
    dot = name.rfind(".")
    suffix = name[dot:] if 0 < dot < len(name) - 1 else ""  # PurePath.suffix, without building a path
    return EXTENSIONS.get(suffix) or EXTENSIONS.get(suffix.lower())


# a `.h` file is C++ when its text says so: fmt's headers parsed as C gave symbols
# spanning call sites (`do_format_decimal` answered with three lines of its caller) and
# templates no symbol at all, and a real agent read them by ranges instead
_CPP_MARKS = None


def language_for_source(path: str | PurePath, data: bytes) -> str | None:
    """`language_for_path`, with a `.h` file whose *data* is C++ (a line opening a
    template, a namespace, a derived class, an access label) read as C++."""
    lang = language_for_path(path)
    if lang == "c" and str(path).endswith(".h") and _looks_cpp(data):
        return "cpp"
    return lang


def _looks_cpp(data: bytes) -> bool:
    global _CPP_MARKS
    if _CPP_MARKS is None:
        import re

        _CPP_MARKS = re.compile(rb"^[ \t]*(template\s*<|namespace\s+\w+\s*\{|(class|struct)\s+\w+\s*(final\s*)?:\s*"
                                rb"(public|private|protected)\b|(public|private|protected)\s*:|using\s+namespace\b)", re.M)
    return _CPP_MARKS.search(data, 0, 1 << 16) is not None


@functools.lru_cache(maxsize=1)
def queries_dir() -> str:
    """Where the `.scm` files live: inside the wheel, or at the source tree's top
    (str paths: `pathlib` costs a read that parses ~4 ms of start-up)."""
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # symbolpack/, above engine/
    for candidate in (os.path.join(package, "queries"), os.path.join(os.path.dirname(package), "queries")):
        if os.path.isdir(candidate):
            return candidate
    raise FileNotFoundError("symbolpack's queries/ directory is missing from this install")


def supported_languages() -> list[str]:
    """Languages with a symbol query (the ones that get skeletons and deltas)."""
    return sorted(name[:-4] for name in os.listdir(queries_dir()) if name.endswith(".scm"))


@functools.lru_cache(maxsize=None)
def query_source(lang: str) -> str | None:
    """The query text for *lang*. A leading `; inherits: other` line prepends
    `other.scm` (a grammar that extends another, like tsx over typescript)."""
    try:
        with open(os.path.join(queries_dir(), f"{lang}.scm"), encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return None
    first = text.split("\n", 1)[0]
    if first.startswith("; inherits:"):
        parents = [query_source(name.strip()) for name in first.split(":", 1)[1].split(",") if name.strip()]
        text = "\n".join([*(p for p in parents if p), text])
    return text


@functools.lru_cache(maxsize=1)
def _engine_fingerprint() -> bytes:
    # The extraction code itself is part of the key: an upgrade never serves old spans.
    with open(os.path.join(os.path.dirname(os.path.realpath(__file__)), "symbols.py"), "rb") as handle:
        return handle.read()


@functools.lru_cache(maxsize=None)
def query_version(lang: str) -> str:
    """Part of every parse-cache key: a query or engine change invalidates old entries."""
    from ..base.workspace import sha256_hasher  # not hashlib: its OpenSSL binding costs a read ~5 ms

    text = query_source(lang) or ""
    h = sha256_hasher()
    h.update(f"{ENGINE_VERSION}\0{lang}\0{text}\0".encode())
    h.update(_engine_fingerprint())
    return h.hexdigest()[:16]


def has_query(lang: str | None) -> TypeGuard[str]:
    return bool(lang) and query_source(lang) is not None


@functools.lru_cache(maxsize=None)
def tree_sitter_language(lang: str) -> Language:
    """The tree-sitter Language for *lang*.

    `tree_sitter_language_pack`'s package import costs ~20 ms per process (it
    imports three grammar packages, typing and importlib.resources up front), more
    than parsing a file. Its grammars are plain extension modules under
    `bindings/`, so the one needed is loaded directly; any surprise in that layout
    falls back to the package's own `get_language`.
    """
    from tree_sitter import Language

    try:
        return Language(_bundled_binding(lang))
    except Exception:
        from tree_sitter_language_pack import get_language

        return get_language(lang)  # type: ignore[arg-type]


def _bundled_binding(lang: str) -> object:
    import importlib.machinery
    import importlib.util
    import os
    import sys

    name = f"tree_sitter_language_pack.bindings.{lang}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.find_spec("tree_sitter_language_pack")
        if spec is None or spec.origin is None:
            raise NotFound("tree_sitter_language_pack is not installed")
        base = os.path.join(os.path.dirname(spec.origin), "bindings")
        path = next((os.path.join(base, lang + suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES
                     if os.path.exists(os.path.join(base, lang + suffix))), None)
        if path is None:
            raise NotFound(f"no bundled grammar for {lang!r}")
        loader = importlib.machinery.ExtensionFileLoader(name, path)
        spec = importlib.util.spec_from_file_location(name, path, loader=loader)
        if spec is None:
            raise NotFound(f"cannot load the grammar of {lang!r} from {path}")
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        sys.modules[name] = module
    return module.language()


def parser_and_query(lang: str, references: bool = True, text: bytes | None = None) -> tuple[Parser, Query]:
    """(Parser, Query) for *lang*; raises NotFound (a LookupError) when it cannot be parsed.

    Without *references* only the definition patterns are compiled: a read needs only
    definitions, and references are most of the matches in a typical file.

    With *text* (the file the query will run on), patterns that cannot match it are
    left out too: a pattern whose `#eq?`/`#any-of?` predicate compares a capture with
    string literals matches only where one of them occurs in the file. Compiling is
    most of a small read's time (TypeScript ~90 ms, C ~95 ms), and the patterns with
    such predicates are among the dearest (`exports.f = function`, `Foo.prototype.f`,
    C's `const` globals): a file without the word skips them.

    Queries are compiled once per process and kept; a later file whose patterns a kept
    query includes uses it (a pattern that cannot match changes nothing), otherwise the
    union of every subset asked for so far is compiled, so a process compiles a
    language's query a handful of times at most."""
    references = bool(references)
    if text is None:
        return parser(lang), _compiled(lang, references, None)
    requirements = _literal_requirements(lang, references)
    needed = frozenset(i for i, alternatives in enumerate(requirements)
                       if all(any(word in text for word in words) for words in alternatives))
    if len(needed) == len(requirements):
        return parser(lang), _compiled(lang, references, None)
    kept = _subsets.setdefault((lang, references), [])
    for subset in kept:
        if needed <= subset:
            return parser(lang), _compiled(lang, references, subset)
    union = needed.union(*kept)
    kept.append(union)
    return parser(lang), _compiled(lang, references, union if len(union) < len(requirements) else None)


_subsets: dict[tuple[str, bool], list[frozenset[int]]] = {}


@functools.lru_cache(maxsize=None)
def parser(lang: str) -> Parser:
    """A tree-sitter Parser for *lang* (no query compiled)."""
    from tree_sitter import Parser

    return Parser(tree_sitter_language(lang))


def _patterns(lang: str, references: bool) -> list[str]:
    source = query_source(lang)
    if source is None:
        raise NotFound(f"no symbol query for language {lang!r}")
    patterns = top_level_patterns(source)
    return patterns if references else [p for p in patterns if "@reference." not in p]


@functools.lru_cache(maxsize=None)
def _literal_requirements(lang: str, references: bool) -> tuple[tuple[tuple[bytes, ...], ...], ...]:
    """Per pattern, the literals it needs in the file: one tuple of alternatives per
    `(#eq? @capture "word")` or `(#any-of? @capture "a" "b")` predicate."""
    import re

    predicate = re.compile(r'\(#(?:eq|any-of)\?\s+@[\w.]+((?:\s+"[^"\\]*")+)\s*\)')
    return tuple(
        tuple(tuple(word.encode("utf-8") for word in re.findall(r'"([^"]*)"', m.group(1)))
              for m in predicate.finditer(pattern))
        for pattern in _patterns(lang, references))


@functools.lru_cache(maxsize=None)
def _compiled(lang: str, references: bool, subset: frozenset[int] | None) -> Query:
    """The query of *lang*'s patterns (definitions only without *references*; only the
    patterns numbered in *subset*, in their order, when given)."""
    from tree_sitter import Query

    patterns = _patterns(lang, references)
    if subset is not None:
        patterns = [p for i, p in enumerate(patterns) if i in subset]
    return Query(tree_sitter_language(lang), "\n".join(patterns))


def top_level_patterns(source: str) -> list[str]:
    """The query's patterns, one string each, as tree-sitter numbers them: a pattern
    starts at every `(` or `[` outside any form, string or `;` comment; captures,
    quantifiers and predicates after a form belong to it."""
    patterns: list[str] = []
    depth, start, i, n = 0, -1, 0, len(source)
    while i < n:
        c = source[i]
        if c == ";":
            end = source.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == '"':
            i += 1
            while i < n and source[i] != '"':
                i += 2 if source[i] == "\\" else 1
        elif c in "([":
            if depth == 0:
                if start >= 0:
                    patterns.append(source[start:i].strip())
                start = i
            depth += 1
        elif c in ")]":
            depth -= 1
        i += 1
    if start >= 0:
        patterns.append(source[start:].strip())
    return patterns
