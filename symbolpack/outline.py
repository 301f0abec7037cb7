"""Human- and agent-readable text outlines of files' symbols (structure, extract)."""

from __future__ import annotations

from typing import Iterable, Mapping

from .index import FileSymbols

_MAX_SIG = 140


def _one_line(signature: str) -> str:
    text = " ".join(signature.split())
    return text if len(text) <= _MAX_SIG else text[: _MAX_SIG - 3] + "..."


def _depths(fs: FileSymbols) -> dict[str, int]:
    depth: dict[str, int] = {}
    for s in fs.symbols:
        depth[s.id] = depth.get(s.parent, -1) + 1 if s.parent else 0
    return depth


def format_file(fs: FileSymbols) -> str:
    lang = fs.language or "no parser"
    head = f"{fs.path} ({lang}, {len(fs.symbols)} symbols)"
    if fs.parse_error:
        head += f" [parse failed: {fs.parse_error}]"
    rows = [head]
    depth = _depths(fs)
    for s in fs.symbols:
        span = f"L{s.lines[0]}-{s.lines[1]}"
        rows.append(f"  {span:<12}{'  ' * depth[s.id]}{_one_line(s.signature) or s.kind + ' ' + s.name}")
    return "\n".join(rows) + "\n"


def format_structure(files: Iterable[FileSymbols], skipped: Mapping[str, int]) -> str:
    files = list(files)
    parts = [format_file(f) for f in files if f.symbols]
    bare = [f.path for f in files if not f.symbols]
    total = sum(len(f.symbols) for f in files)
    footer = f"{len(files)} files, {total} symbols"
    if bare:
        footer += f"; {len(bare)} files without symbols"
    if skipped:
        footer += "; skipped: " + ", ".join(f"{n} {why}" for why, n in sorted(skipped.items()))
    return "".join(parts) + footer + "\n"


def format_extract(fs: FileSymbols) -> str:
    rows = [f"{fs.path} ({fs.language or 'no parser'}, {len(fs.symbols)} symbols)"]
    for s in fs.symbols:
        body = f"body L{s.body[0]}-{s.body[1]}" if s.body else "no body"
        rows.append(f"{s.id}  {s.kind}  L{s.lines[0]}-{s.lines[1]}  {body}  etag {s.etag}")
        rows.extend(f"    {line}" for line in s.signature.split("\n"))
    return "\n".join(rows) + "\n"
