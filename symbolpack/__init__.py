"""symbolpack: token-frugal, never-stale code reads for LLM coding agents.

The public API is re-exported here lazily, so importing `symbolpack` (and so
starting the CLI) costs nothing until a name is used.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._version import __version__

_EXPORTS = {
    "SymbolSlice": "engine.symbols",
    "SymbolRecord": "engine.symbols",
    "extract": "engine.symbols",
    "FileSymbols": "engine.index",
    "Index": "engine.index",
    "language_for_path": "engine.languages",
    "supported_languages": "engine.languages",
    "SymbolpackError": "base.errors",
    "UsageError": "base.errors",
    "NotFound": "base.errors",
    "GitError": "base.errors",
    "StoreError": "base.errors",
    "Settings": "base.settings",
    "load_settings": "base.settings",
    "Workspace": "api.operations",
    "read_file": "api.operations",
    "refresh": "api.operations",
    "status": "api.operations",
    "ReadPolicy": "reads.read",
    "context_pack": "api.context",
    "diff_context": "api.context",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> object:
    if name == "__version__":  # a hook's read never needs it: one module fewer per process
        from ._version import __version__

        return __version__
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'symbolpack' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{module}", __name__), name)
