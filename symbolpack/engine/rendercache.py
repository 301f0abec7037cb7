"""Rendered `structure` output per file, cached next to the parse cache.

A warm `tldrs structure` of a big tree spent its time unpickling every file's
symbols, binding them to their path and rendering them again (JSON encoding
above all), to print exactly what the previous run printed. This module caches
each file's rendered fragment (its JSON object, or its text outline) keyed by
everything the fragment is a pure function of:

* the output format and `RENDER_VERSION` (bump it whenever `FileSymbols.to_json`,
  `SymbolSlice.to_json`, `outline.format_file` or the encoding below changes);
* the parse-cache key: the query version of the language (which covers the engine
  and the query) and the sha256 of the file's bytes;
* the language and the repo-relative path (every symbol id and the JSON's `path`
  name it).

So a file renamed, edited, or parsed by another query gets another key, and an
entry can never describe other bytes, paths or renderers than the ones asked for.
Sensitive files (`sources.is_sensitive`) and files whose parse failed are never
cached here (`Index._complete` decides); files with no parser are rendered afresh
(they have no symbols: nothing to save).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .index import FileSymbols

RENDER_VERSION = 1
FORMATS = ("json", "text")


class Renderer:
    """Renders one file for `structure --format FMT` as (symbol count, fragment)."""

    def __init__(self, fmt: str):
        if fmt not in FORMATS:
            raise ValueError(f"no renderer for format {fmt!r}")
        self.fmt = fmt
        self._prefix = f"render:{fmt}:{RENDER_VERSION}:"

    def key(self, parse_key: str, lang: str, rel: str) -> str:
        """The cache key of a file's fragment (*parse_key*: its parse-cache key)."""
        return f"{self._prefix}{parse_key}:{lang}:{rel}"

    def render(self, fs: FileSymbols) -> tuple[int, str]:
        if self.fmt == "json":
            return len(fs.symbols), json.dumps(fs.to_json(), ensure_ascii=False)
        from .outline import format_file

        return len(fs.symbols), format_file(fs) if fs.symbols else ""

    @staticmethod
    def valid(value: object) -> bool:
        """Is *value* what `render` gives (a cache entry of the right shape)?"""
        return valid(value)


def valid(value: object) -> bool:
    """Is *value* what `Renderer.render` gives (a cache entry of the right shape)?"""
    return isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], int) and isinstance(value[1], str)
