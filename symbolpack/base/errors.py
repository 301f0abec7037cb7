"""What can go wrong, by what a front end does about it.

Every error a user can cause or fix is a `SymbolpackError`, and its message is
the whole story: one line, saying what was wrong and what to do. Each front end
catches `SymbolpackError` once (the CLI prints `tldrs: error: <message>` and
exits non-zero, the MCP server returns a tool error, hooks fail open with no
decision, Chibi tools answer `Error: <message>`); anything else is a bug, shown
as one "internal error" line, never a traceback (unless debugging is on).

The subclasses say *which kind* of trouble, for callers that act on it:

- `UsageError`: the request itself is wrong (a bad option value, a range past
  the end, an invalid session id, a malformed tool argument). Retrying the same
  request cannot succeed.
- `NotFound`: what was named does not exist (a file, a symbol, a revision).
  Carries `suggestions` (close names, best first) when there are any.
- `GitError`: git could not be run or refused (not a repository, a command
  failed).
- `StoreError`: symbolpack's own state cannot be used (the state directory, a
  session document). Reads catch it and answer plainly.
"""

from __future__ import annotations


class SymbolpackError(Exception):
    """An error the user caused or can fix; front ends show its message as one line."""


class UsageError(SymbolpackError, ValueError):
    """The request is malformed (a ValueError too, for callers that caught that)."""


class NotFound(SymbolpackError, LookupError):
    """What the request named does not exist; `suggestions` are close names, best first."""

    def __init__(self, message: str, suggestions: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(message)
        self.suggestions = tuple(suggestions)


class GitError(SymbolpackError):
    """git could not be run, or a git command failed."""


class StoreError(SymbolpackError):
    """symbolpack's state (state directory, session documents) cannot be used."""


__all__ = ["SymbolpackError", "UsageError", "NotFound", "GitError", "StoreError"]
