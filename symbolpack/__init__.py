"""symbolpack: token-frugal, never-stale code reads for LLM coding agents.

The public API is re-exported here lazily, so importing `symbolpack` (and so
starting the CLI) costs nothing until a name is used.
"""

from __future__ import annotations

from ._version import __version__

_EXPORTS = {
    "SymbolSlice": "symbols",
    "SymbolRecord": "symbols",
    "extract": "symbols",
    "FileSymbols": "index",
    "Index": "index",
    "language_for_path": "languages",
    "supported_languages": "languages",
    "SymbolpackError": "errors",
    "UsageError": "errors",
    "NotFound": "errors",
    "GitError": "errors",
    "StoreError": "errors",
    "Settings": "settings",
    "load_settings": "settings",
    "Workspace": "operations",
    "read_file": "operations",
    "refresh": "operations",
    "status": "operations",
    "ReadPolicy": "read",
    "context_pack": "context",
    "diff_context": "context",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'symbolpack' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{module}", __name__), name)
