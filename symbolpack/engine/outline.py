"""Human- and agent-readable text outlines of files' symbols (structure, extract)."""

from __future__ import annotations

from typing import Callable, Iterable, Mapping

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
    parts: list[str] = []
    write_structure(files, skipped, parts.append)
    return "".join(parts)


def write_structure(files: Iterable[FileSymbols], skipped: Mapping[str, int], write: Callable[[str], object]) -> None:
    """`format_structure`, handed to *write* file by file as *files* arrive: a big
    tree's symbols are never all in memory at once."""
    write_rendered_structure(((len(f.symbols), format_file(f) if f.symbols else "") for f in files), skipped, write)


def write_rendered_structure(files: Iterable[tuple[int, str]], skipped: Mapping[str, int],
                             write: Callable[[str], object]) -> None:
    """`write_structure` of files rendered already: (symbol count, `format_file` text
    or "" when it has no symbols) each, as `rendercache.Renderer("text")` gives them."""
    count = total = bare = 0
    for n, text in files:
        count += 1
        total += n
        if n:
            write(text)
        else:
            bare += 1
    footer = f"{count} files, {total} symbols"
    if bare:
        footer += f"; {bare} files without symbols"
    if skipped:
        footer += "; skipped: " + ", ".join(f"{n} {why}" for why, n in sorted(skipped.items()))
    write(footer + "\n")


def format_extract(fs: FileSymbols) -> str:
    rows = [f"{fs.path} ({fs.language or 'no parser'}, {len(fs.symbols)} symbols)"]
    for s in fs.symbols:
        body = f"body L{s.body[0]}-{s.body[1]}" if s.body else "no body"
        rows.append(f"{s.id}  {s.kind}  L{s.lines[0]}-{s.lines[1]}  {body}  etag {s.etag}")
        rows.extend(f"    {line}" for line in s.signature.split("\n"))
    return "\n".join(rows) + "\n"
