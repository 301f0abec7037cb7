"""Per-language call resolution: one `Resolver` per language family, one module each.

`CallGraph` (in `callgraph`) owns the rules every language shares: same-file and
nested definitions, `self.` into the enclosing type and its bases, imported names,
re-exports, and the observations that keep cached edges honest. What differs by
language is asked of the file's resolver through the hooks below; a language with
no resolver gets the defaults (no imports, no modules, no type hints).

To add a language family: write `resolve/<family>.py` with a `Resolver` subclass
naming its tree-sitter `languages`, and list it in `_registry`. Nothing else changes. The interface and the
helpers resolvers share are in `base.py`.
"""

from __future__ import annotations

import functools

from .base import (Resolver, at_var, collect_hints, extends_implements, hint_matches,  # noqa: F401  (re-exported)
                   ordered_hints)

@functools.lru_cache(maxsize=1)
def _registry() -> tuple[dict[str, type[Resolver]], dict[str, type[Resolver]]]:
    from .go import GoResolver
    from .java import JavaResolver
    from .js import JsResolver
    from .python import PythonResolver
    from .rust import RustResolver

    resolvers: tuple[type[Resolver], ...] = (PythonResolver, JsResolver, GoResolver, RustResolver, JavaResolver)
    by_language = {lang: cls for cls in resolvers for lang in cls.languages}
    by_observation = {kind: cls for cls in resolvers for kind in cls.observations}
    return by_language, by_observation


def resolver_class(lang: str | None) -> type[Resolver]:
    """The resolver of *lang*'s family (`Resolver` itself when it has none)."""
    return _registry()[0].get(lang or "", Resolver)


def observation_class(kind: str) -> type[Resolver] | None:
    """The resolver that answers observations of *kind*."""
    return _registry()[1].get(kind)


def family(lang: str | None) -> str | None:
    """`python`, `js`, `go`, `rust`, `java`, or None."""
    return resolver_class(lang).family
