"""One hook run, for hosts that run a command per tool call with a JSON payload on stdin
(Claude Code, Qwen Code): the hook's stdout, or '' for no decision, and never an
exception -- a hook must not break the tool call it watches. What the hook records
that waits for its answer to be delivered (intents to commit) runs only once the answer
was written and flushed (`run_all` by the caller), or at once for an in-process caller,
for whom returning is delivering.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Mapping


def run_hook(hooks: Mapping[str, Callable], prefix: str, name: str, stdin_text: str,
             after: list | None = None) -> str:
    """Hook *name* (or *prefix* + *name*) of *hooks* on one payload."""
    handler = hooks.get(name) or hooks.get(prefix + name)
    if handler is None:
        log(f"unknown hook {name!r} (known: {', '.join(hooks)})")
        return ""
    try:
        payload = json.loads(stdin_text) if stdin_text.strip() else None
    except ValueError:
        log(f"{name}: payload is not JSON; no decision")
        return ""
    pending: list = []
    try:
        out = handler(payload, pending)
        text = json.dumps(out, ensure_ascii=False) if out else ""
    except Exception as exc:  # a hook never breaks the tool call
        from ..base.settings import load_settings

        if load_settings().debug:
            import traceback

            traceback.print_exc()
        log(f"{name}: {type(exc).__name__}: {exc}; no decision")
        return ""  # nothing recorded is committed: what it wrote stays pending (unsure)
    if after is None:
        run_all(pending)
    else:
        after.extend(pending)
    return text


def run_all(callbacks) -> None:
    """Commit what was waiting for delivery; a failure only leaves it unsure."""
    for callback in callbacks:
        try:
            callback()
        except Exception as exc:  # an uncommitted intent only means "unsure"
            log(f"commit failed: {type(exc).__name__}: {exc}")


def log(message: str) -> None:
    """A hook's own trouble: one `symbolpack hook: warning: ...` line on stderr."""
    try:
        from ..base.log import warning

        warning(message)
    except Exception:
        pass
