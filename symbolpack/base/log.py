"""symbolpack's warnings and debug notes go to `logging.getLogger("symbolpack")`.

Library users route them like any library's; the front ends call `configure`
once (warnings as one line on stderr, `debug` when asked). `logging` is imported
only when something is logged or configured: the read path of a hook process
(one per tool call) never pays for it when all is well.
"""

from __future__ import annotations

NAME = "symbolpack"
_configured: list = []  # the logging.Handler `configure` installed, to replace on a second call
_pending: list[tuple[str, str]] = []  # a `configure` not applied yet (nothing logged so far)
_debug_on = False


def logger():  # -> logging.Logger (not annotated: `logging` stays unimported until used)
    import logging

    if _pending:
        _apply(*_pending.pop())
    return logging.getLogger(NAME)


def warning(message: str) -> None:
    """One warning line (the front ends print it as `symbolpack: warning: ...`)."""
    logger().warning("%s", message)


def debug(message: str) -> None:
    """A debug note, when a front end asked for them (`configure("debug")`: `--verbose`,
    SYMBOLPACK_LOG=debug); otherwise nothing, not even an import."""
    if _debug_on:
        logger().debug("%s", message)


def configure(level: str = "warning", prefix: str = "symbolpack") -> None:
    """Send symbolpack's records to stderr as `<prefix>: warning: message` lines, at
    *level* ("warning" or "debug"). Idempotent: a second call replaces the first.
    At "warning" nothing is imported until a first record is logged."""
    global _debug_on
    _debug_on = level == "debug"
    _pending.clear()
    _pending.append((level, prefix))
    if level == "debug":
        logger()


def _apply(level: str, prefix: str) -> None:
    import logging
    import sys

    class Line(logging.Handler):
        """`<prefix>: <level>: <message>` on whatever `sys.stderr` is at the time (tests
        and the MCP server swap it); a write that fails is dropped, never raised."""

        def emit(self, record: logging.LogRecord) -> None:
            try:
                sys.stderr.write(f"{prefix}: {record.levelname.lower()}: {record.getMessage()}\n")
                sys.stderr.flush()
            except Exception:
                pass

    log = logging.getLogger(NAME)
    for old in _configured:
        log.removeHandler(old)
    _configured.clear()
    handler = Line()
    log.addHandler(handler)
    log.setLevel(logging.DEBUG if level == "debug" else logging.WARNING)
    log.propagate = False
    _configured.append(handler)
