"""Which of symbolpack's answers about a file Claude Code's model holds right now.

The session's transcript (`transcript.py`) proves which tool results are on the
active chain; this module keeps those that are symbolpack's answers and still say
what symbolpack sent (a denied Read's stored reason hashes to the answer's digest;
a native read counts while it is there, not an error and not cleared), in context
order, and keeps a file Claude re-attached after a compaction as an answer of its
own. None means nothing is proven: the session's conversation-order copy answers.
"""

from __future__ import annotations

import os

from ...base.workspace import sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .payload import HookRequest

DENY_PREFIX = "PreToolUse:Read hook error: "  # how Claude Code stores a denied Read's reason


def present_answers(req: HookRequest, store, rel: str) -> list[str] | None:
    """The ids of the answers about *rel* the model holds now, in context order, as the
    session's transcript proves them (`transcript.py`); None when it cannot (no
    transcript or tool-use id in the payload, or the call never shows up in it): the
    session's conversation-order copy answers then."""
    tool_use_id = req.payload.get("tool_use_id")
    if not isinstance(tool_use_id, str) or not tool_use_id:
        return None
    from .transcript import present_for, present_results, transcript_for

    path = transcript_for(req.payload)
    if path is None:
        return None
    cache = os.path.join(store.dir, "claude", sha256_hex(path.encode("utf-8", "surrogateescape"))[:32] + ".pickle")
    found = present_for(path, cache, tool_use_id)
    if found is None:
        return None
    known = {e.id: e for e in store.answers(rel)}
    real = os.path.realpath(req.path)
    present = []
    for kind, item in present_results(*found):
        if kind == "result":
            ident, digest, is_error, cleared = item
            effect = known.get(ident)
            if effect is None or cleared:
                continue  # not ours, or Claude cleared it
            if effect.digest is not None and effect.digest != digest:
                continue  # the record says something else than the answer we gave
            if effect.digest is None and is_error:
                continue  # a native read that failed showed nothing
            present.append(ident)
        elif os.path.realpath(item[1]) == real:  # a file Claude re-attached after compacting
            if item[0] not in known:
                _record_attached(store, rel, *item)
            present.append(item[0])
    return present


def _record_attached(store, rel: str, uuid: str, _path: str, content: str, start: int) -> None:
    """A file Claude re-attached (read from disk, shown whole) is an answer of its own."""
    import time

    from ...engine.sources import split_text_lines
    from ...reads.answers import shown_effect

    data = content.encode("utf-8", "surrogateescape")
    sha = store.put_object(data)
    count = len(split_text_lines(content))
    store.add_answer(rel, shown_effect(uuid, sha, start, start + count - 1, count if start == 1 else None,
                                       time.time_ns()))

