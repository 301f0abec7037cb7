"""Helpers for the per-language fixture tests: one file per language, source inline."""

from __future__ import annotations

import textwrap

from symbolpack.engine.symbols import extract


def symbols_of(source: str, lang: str) -> list[tuple]:
    """(local_id, kind, lines, body) of every symbol, in source order."""
    records, _ = extract(textwrap.dedent(source).lstrip("\n").encode(), lang)
    return [(r.local_id, r.kind, r.lines, r.body) for r in records]


def records_of(source: str, lang: str):
    return extract(textwrap.dedent(source).lstrip("\n").encode(), lang)
