"""One `Settings` value: everything a user can configure, read in one place.

Sources, strongest first: the process environment (`SYMBOLPACK_*`), then the
project's `pyproject.toml` (`[tool.symbolpack]`), then the defaults below. Only
this module reads them; front ends (the CLI, the MCP server, the hooks, Chibi,
the eval harness) build a `Settings` and pass it down, so a caller that wants
other state (the eval's scratch directory, a test's) passes another value
instead of mutating `os.environ`.

Why not a dataclass: hooks start one process per tool call, and importing
`dataclasses` (which pulls in `inspect`) costs more than the read it configures;
a class with `__slots__` and a `FIELDS` table gives the same frozen value. Why
not always `tomllib`: a `pyproject.toml` is parsed only when its text can
mention `[tool.symbolpack]` at all (a byte search), so the read path of a
project that configures nothing imports no TOML parser.

Faults fail safe: an unreadable or invalid `pyproject.toml`, or a value of the
wrong type there, is one warning and the default; a malformed number in the
environment is the default (as it always was).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from collections.abc import Mapping

DEFAULT_MAX_ENTRIES = 10_000
DEFAULT_TTL_SECONDS = 7 * 24 * 3600
# a first whole-file read of a file under this many tokens is the file, not a skeleton:
# measured with real agents (`tldrs ab`), a skeleton of a small file cost a drill-in call
# that re-sends the whole context, more than the lines it saved
DEFAULT_SMALL_FILE_TOKENS = 4000
# hosts cut a longer tool result (the agent lab and Claude Code at 25,000), and with it
# the id at the end of an MCP answer: a whole-file answer stops short of that instead
DEFAULT_MCP_MAX_ANSWER_CHARS = 24_000
LOG_LEVELS = ("warning", "debug")


class Field:
    """One setting: its name, where it comes from, its default, what it does."""

    __slots__ = ("name", "env", "toml", "kind", "default", "doc")

    def __init__(self, name: str, env: str, toml: bool, kind: str, default: object, doc: str):
        self.name = name
        self.env = env  # the environment variable
        self.toml = toml  # may also be set in `[tool.symbolpack]` under the same name
        self.kind = kind  # "path", "str", "int", "bool", "globs", "paths", "level"
        self.default = default
        self.doc = doc


FIELDS: tuple[Field, ...] = (
    Field("state_dir", "SYMBOLPACK_DIR", True, "path", None,
          "where sessions, baselines and caches live (default `<repo>/.symbolpack`, or "
          "`$XDG_STATE_HOME/symbolpack/<dir>-<hash>` outside a repository); relative to the "
          "project root when set in pyproject.toml"),
    Field("session_id", "SYMBOLPACK_SESSION_ID", False, "str", None,
          "the session (one conversation) when no `--session-id` is given; otherwise the agent "
          "process or terminal session"),
    Field("sensitive", "SYMBOLPACK_SENSITIVE", True, "globs", (),
          "more file-name globs never shown, stored or cached, besides `.env*`, `*.pem`, `*.key`, "
          "`id_rsa*`, ... (comma-separated in the environment, a list in pyproject.toml)"),
    Field("max_entries", "SYMBOLPACK_MAX_ENTRIES", True, "int", DEFAULT_MAX_ENTRIES,
          "most file entries one session keeps (least recently used go first)"),
    Field("ttl_seconds", "SYMBOLPACK_TTL_SECONDS", True, "int", DEFAULT_TTL_SECONDS,
          "a session unused this long is dropped"),
    Field("debug", "SYMBOLPACK_DEBUG", False, "bool", False,
          "`1`: show tracebacks (CLI, hooks, Chibi tools) instead of one error line"),
    Field("log", "SYMBOLPACK_LOG", True, "level", "warning",
          "`debug` to log what the engine does (CLI and MCP server, on stderr); default `warning`"),
    Field("tldrs", "SYMBOLPACK_TLDRS", False, "str", None,
          "the command `install` writes into an agent's settings (default: this environment's `tldrs`)"),
    Field("mcp_allow_dirs", "SYMBOLPACK_MCP_ALLOW_DIRS", True, "paths", (),
          "directories `tldrs mcp`'s tools may read besides the workspace (the client's roots, else the "
          "project); `/` allows every path (separated by `:` in the environment, a list in pyproject.toml, "
          "relative to the project root there)"),
    Field("small_file_tokens", "SYMBOLPACK_SMALL_FILE_TOKENS", True, "int", DEFAULT_SMALL_FILE_TOKENS,
          "a first whole-file read of a file under this many tokens shows it whole, not as a skeleton"),
    Field("mcp_max_answer_chars", "SYMBOLPACK_MCP_MAX_ANSWER_CHARS", True, "int", DEFAULT_MCP_MAX_ANSWER_CHARS,
          "a whole-file answer of `tldrs mcp`'s read_file stops before this many characters, the rest one elided "
          "run; a range or symbol stops at the last line that fits and names the lines left (a host cuts a longer "
          "tool result, and its answer id with it); 0: no limit"),
)
_BY_NAME = {f.name: f for f in FIELDS}


class Settings:
    """The settings of one project in one process; immutable (`replace` makes a new one)."""

    __slots__ = tuple(f.name for f in FIELDS)

    state_dir: str | None
    session_id: str | None
    sensitive: tuple[str, ...]
    max_entries: int
    ttl_seconds: int
    debug: bool
    log: str
    tldrs: str | None
    mcp_allow_dirs: tuple[str, ...]
    small_file_tokens: int
    mcp_max_answer_chars: int

    def __init__(self, *, state_dir: str | None = None, session_id: str | None = None,
                 sensitive: tuple[str, ...] = (), max_entries: int = DEFAULT_MAX_ENTRIES,
                 ttl_seconds: int = DEFAULT_TTL_SECONDS, debug: bool = False, log: str = "warning",
                 tldrs: str | None = None, mcp_allow_dirs: tuple[str, ...] = (),
                 small_file_tokens: int = DEFAULT_SMALL_FILE_TOKENS,
                 mcp_max_answer_chars: int = DEFAULT_MCP_MAX_ANSWER_CHARS) -> None:
        values = {"state_dir": state_dir, "session_id": session_id, "sensitive": tuple(sensitive),
                  "max_entries": max_entries, "ttl_seconds": ttl_seconds, "debug": debug, "log": log,
                  "tldrs": tldrs, "mcp_allow_dirs": tuple(mcp_allow_dirs), "small_file_tokens": small_file_tokens,
                  "mcp_max_answer_chars": mcp_max_answer_chars}
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Settings are immutable; use replace({name}=...)")

    def replace(self, **changes: object) -> Settings:
        unknown = set(changes) - set(_BY_NAME)
        if unknown:
            raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
        values = {f.name: getattr(self, f.name) for f in FIELDS}
        values.update(changes)
        return Settings(**values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Settings) and all(
            getattr(self, f.name) == getattr(other, f.name) for f in FIELDS)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, f.name) for f in FIELDS))

    def __repr__(self) -> str:
        changed = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in FIELDS
                            if getattr(self, f.name) != f.default)
        return f"Settings({changed})"


def load_settings(root: Path | str | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """The settings for the project at *root*: *environ* (default `os.environ`) over
    `<root>/pyproject.toml`'s `[tool.symbolpack]` over the defaults. Without *root*,
    the environment and the defaults only."""
    env = os.environ if environ is None else environ
    values: dict[str, object] = {}
    if root is not None:
        values.update(_from_pyproject(os.fspath(root)))  # a str: the read path never imports pathlib
    for f in FIELDS:
        raw = env.get(f.env)
        if raw is None or (raw == "" and f.kind not in ("globs", "paths")):
            continue
        parsed = _from_env(f, raw)
        if parsed is not _SKIP:
            values[f.name] = parsed
    return Settings(**values)  # type: ignore[arg-type]


_SKIP = object()


def _from_env(f: Field, raw: str) -> object:
    if f.kind == "int":
        try:
            return max(1, int(raw))
        except ValueError:
            return _SKIP  # as before: a malformed number is the default
    if f.kind == "bool":
        return raw == "1"
    if f.kind == "globs":
        return tuple(p.strip() for p in raw.split(",") if p.strip())
    if f.kind == "paths":
        return tuple(p for p in raw.split(os.pathsep) if p.strip())
    if f.kind == "level":
        return "debug" if raw.lower() == "debug" else "warning"
    return raw


def _from_pyproject(root: str) -> dict[str, object]:
    path = os.path.join(root, "pyproject.toml")
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return {}
    if not _may_configure(data):
        return {}
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the same parser, from PyPI
        import tomli as tomllib
    try:
        table = tomllib.loads(data.decode("utf-8")).get("tool", {}).get("symbolpack", {})
    except (UnicodeDecodeError, ValueError, AttributeError) as exc:
        _warn(f"{path}: not valid TOML ({exc}); its [tool.symbolpack] settings are ignored")
        return {}
    if not isinstance(table, dict):
        _warn(f"{path}: tool.symbolpack is not a table; ignored")
        return {}
    values: dict[str, object] = {}
    for key, value in table.items():
        f = _BY_NAME.get(key)
        if f is None or not f.toml:
            _warn(f"{path}: [tool.symbolpack] {key} is not a setting symbolpack reads there; ignored")
            continue
        parsed = _from_toml(f, value, root)
        if parsed is _SKIP:
            _warn(f"{path}: [tool.symbolpack] {key} = {value!r} is not {_EXPECTED[f.kind]}; "
                  f"using the default")
            continue
        values[key] = parsed
    return values


_EXPECTED = {"path": "a path", "str": "a string", "int": "a positive integer", "bool": "true or false",
             "globs": "a list of glob strings", "paths": "a list of directories", "level": "one of " + ", ".join(LOG_LEVELS)}


def _from_toml(f: Field, value: object, root: str) -> object:
    if f.kind == "int":
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else _SKIP
    if f.kind == "globs":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return _SKIP
        return tuple(v.strip() for v in value if v.strip())
    if f.kind == "paths":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return _SKIP
        return tuple(os.path.join(root, os.path.expanduser(v)) for v in value if v.strip())
    if f.kind == "level":
        return value.lower() if isinstance(value, str) and value.lower() in LOG_LEVELS else _SKIP
    if f.kind == "path":
        if not isinstance(value, str) or not value:
            return _SKIP
        from pathlib import Path

        return str(Path(root) / os.path.expanduser(value))
    return value if isinstance(value, str) else _SKIP


def _may_configure(data: bytes) -> bool:
    """Can this TOML text hold a `tool.symbolpack` table? A byte search that never
    says no wrongly (`symbolpack` as a key, or after a dot), so most projects skip
    the parser; a false yes only costs the parse."""
    at = data.find(b"symbolpack")
    while at != -1:
        before = data[:at].rstrip(b" \t\"'")
        if not before or before.endswith((b".", b"\n")):
            return True
        at = data.find(b"symbolpack", at + 1)
    return False


def _warn(message: str) -> None:
    from .log import warning

    warning(message)


def settings_table() -> str:
    """The Markdown table of every setting (README's "Settings" section is this text)."""
    rows = ["| setting | environment | `[tool.symbolpack]` | default | what it does |",
            "| --- | --- | --- | --- | --- |"]
    for f in FIELDS:
        default = "none" if f.default in (None, ()) else f"`{f.default}`"
        toml = f"`{f.name}`" if f.toml else "no"
        rows.append(f"| {f.name} | `{f.env}` | {toml} | {default} | {f.doc} |")
    return "\n".join(rows) + "\n"
