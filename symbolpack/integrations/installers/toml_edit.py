"""TOML edited as text: find a table, set or delete one key in it, append or drop the table.

Codex keeps its settings in `config.toml`, a file people write by hand, with
comments and their own order. The standard library reads TOML but does not
write it, and a round trip through any TOML writer loses the comments; so the
installer edits lines. This module scans the file into statements (table
headers and `key = value` lines, a value possibly running over lines: arrays,
multi-line strings), each with its byte span, and edits by span. The caller
checks the result with `tomllib` before writing anything.

Pure: text in, text out. What this does not edit (a table written as an inline
table or with dotted keys) it does not find, and the caller says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_BASIC = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_LITERAL = re.compile(r"'[^'\n]*'")
_WS = re.compile(r"[ \t]*")


class TomlScanError(ValueError):
    pass


def loads(text: str) -> dict:
    """*text* parsed (`tomllib`, or `tomli` on Python 3.10); ValueError when it is not TOML."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: a dependency there
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads(text)


@dataclass(frozen=True)
class Statement:
    """A table header or a key/value line: its parts and where its lines start and end."""

    kind: str  # "table" | "array_table" | "key"
    key: tuple[str, ...]  # the header's name, or the key (dotted parts)
    start: int  # the start of its first line
    end: int  # just after its last line's newline (or the end of the text)
    value_start: int = 0
    value_end: int = 0


def _key(text: str, pos: int) -> tuple[tuple[str, ...], int]:
    parts = []
    while True:
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        for pattern, unquote in ((_BASIC, _unquote_basic), (_LITERAL, lambda s: s[1:-1]), (_BARE, str)):
            m = pattern.match(text, pos)
            if m:
                parts.append(unquote(m.group()))
                pos = m.end()
                break
        else:
            raise TomlScanError(f"expected a key at offset {pos}")
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith(".", pos):
            pos += 1
            continue
        return tuple(parts), pos


def _unquote_basic(s: str) -> str:
    import json

    try:
        return json.loads(s)
    except ValueError:
        return s[1:-1]


def _scan_value(text: str, pos: int) -> int:
    """The end of the value starting at *pos* (arrays and multi-line strings may span lines)."""
    depth = 0
    n = len(text)
    while pos < n:
        if text.startswith('"""', pos) or text.startswith("'''", pos):
            quote = text[pos:pos + 3]
            end = pos + 3
            while True:
                end = text.find(quote, end)
                if end == -1:
                    raise TomlScanError("unclosed multi-line string")
                if quote == '"""' and _escaped(text, end):
                    end += 1
                    continue
                break
            while text.startswith(quote[0], end + 3):
                end += 1  # up to two quotes may end the content
            pos = end + 3
        elif text[pos] == '"':
            m = _BASIC.match(text, pos)
            if not m:
                raise TomlScanError("unclosed string")
            pos = m.end()
        elif text[pos] == "'":
            m = _LITERAL.match(text, pos)
            if not m:
                raise TomlScanError("unclosed string")
            pos = m.end()
        elif text[pos] in "[{":
            depth += 1
            pos += 1
        elif text[pos] in "]}":
            depth -= 1
            pos += 1
            if depth == 0:
                return pos
        elif text[pos] == "#" and depth:
            eol = text.find("\n", pos)
            pos = n if eol == -1 else eol
        elif depth == 0 and text[pos] in " \t\r\n#":
            return pos
        else:
            pos += 1
    if depth:
        raise TomlScanError("unclosed array or inline table")
    return pos


def _escaped(text: str, pos: int) -> bool:
    k = pos
    while k > 0 and text[k - 1] == "\\":
        k -= 1
    return (pos - k) % 2 == 1


def _line_end(text: str, pos: int) -> int:
    eol = text.find("\n", pos)
    return len(text) if eol == -1 else eol + 1


def scan(text: str) -> list[Statement]:
    """Every table header and key/value statement of *text*, in order."""
    out: list[Statement] = []
    pos = 0
    n = len(text)
    while pos < n:
        start = pos
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= n or text[pos] in "\r\n#":
            pos = _line_end(text, pos)
            continue
        if text[pos] == "[":
            array = text.startswith("[[", pos)
            name, pos = _key(text, pos + (2 if array else 1))
            close = "]]" if array else "]"
            if not text.startswith(close, pos):
                raise TomlScanError(f"bad table header at offset {start}")
            end = _line_end(text, pos)
            out.append(Statement("array_table" if array else "table", name, start, end))
            pos = end
            continue
        key, pos = _key(text, pos)
        if not text.startswith("=", pos):
            raise TomlScanError(f"expected '=' at offset {pos}")
        value_start = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        value_end = _scan_value(text, value_start)
        end = _line_end(text, value_end)
        out.append(Statement("key", key, start, end, value_start, value_end))
        pos = end
    return out


@dataclass(frozen=True)
class Table:
    header: Statement
    keys: tuple[Statement, ...]  # its own key/value lines (not its subtables')
    end: int  # where the next header starts (or the end of the text)
    subtables: bool  # whether `[name.*]` tables follow it


def find_table(text: str, name: tuple[str, ...]) -> Table | None:
    stmts = scan(text)
    for i, s in enumerate(stmts):
        if s.kind == "table" and s.key == name:
            keys = []
            end = len(text)
            for t in stmts[i + 1:]:
                if t.kind != "key":
                    end = t.start
                    break
                keys.append(t)
            subtables = any(t.kind != "key" and t.key[:len(name)] == name and len(t.key) > len(name)
                            for t in stmts)
            return Table(s, tuple(keys), end, subtables)
    return None


def top_level_keys(text: str) -> list[Statement]:
    out = []
    for s in scan(text):
        if s.kind != "key":
            break
        out.append(s)
    return out


def set_key(text: str, table: Table, key: str, value: str) -> str:
    """*text* with `key = value` in *table*: the value replaced in place, or a line added
    after the table's last key (after its header when it has none)."""
    for s in table.keys:
        if s.key == (key,):
            return text[:s.value_start] + value + text[s.value_end:]
    nl = "\r\n" if "\r\n" in text else "\n"
    at = table.keys[-1].end if table.keys else table.header.end
    prefix = "" if at == 0 or text[at - 1:at] == "\n" else nl
    return text[:at] + prefix + f"{key} = {value}{nl}" + text[at:]


def delete_key(text: str, table: Table, key: str) -> str:
    for s in table.keys:
        if s.key == (key,):
            return text[:s.start] + text[s.end:]
    return text


def append_table(text: str, block: str) -> str:
    """*text* with *block* (a header and its lines) at the end, after a blank line (after a
    line break only when *text* had no final one, so that `delete_table` can tell the cases apart)."""
    if not text:
        return block
    nl = "\r\n" if "\r\n" in text else "\n"
    if nl != "\n":
        block = block.replace("\n", nl)
    return text + nl + block


def delete_table(text: str, table: Table) -> str:
    """*text* without *table*'s header and lines (the undo of `append_table` where that made it)."""
    before, after = text[:table.header.start], text[table.end:]
    if not after:
        nl = "\r\n" if "\r\n" in text else "\n"
        if before.endswith(nl):
            before = before[:-len(nl)]  # the line break `append_table` put before it
    return before + after
