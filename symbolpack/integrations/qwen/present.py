"""Which of symbolpack's answers about a file Qwen Code's model holds right now.

From the transcript (`transcript.py`): the tool results on the active chain of the
current call. A result counts while it says what symbolpack kept for it (a read
symbolpack answered: the stop's reason, by digest; Qwen's own output: what its
post-read hook saw, by digest; an own edit: any result that is not an error), and
while Qwen's microcompaction cannot have blanked it (`blanked`: every result that a
trigger it could have met would clear, with the thresholds read from the user's and
the project's settings; Qwen never blanks an error result, which is what an answer
is). None means nothing is proven: the answer then leans on nothing.
"""

from __future__ import annotations

import os

from ...base.workspace import sha256_hex

# Qwen 0.24.4's COMPACTABLE_TOOLS: the results its microcompaction may blank
COMPACTABLE = frozenset(("read_file", "run_shell_command", "grep_search", "glob", "web_fetch", "web_search",
                         "read_mcp_resource", "edit", "write_file", "skill"))
IDLE_MARGIN_SECONDS = 60  # a record's time is a little after its request; never later than it by more


class Proof:
    __slots__ = ("present",)

    def __init__(self, present: list[str]) -> None:
        self.present = present


def prove(payload: dict, call_id: str | None, store, rel: str, root: str) -> Proof | None:
    """The answers about *rel* the model holds (context order); None when the
    transcript does not show the call (no proof)."""
    if call_id is None:
        return None
    from .transcript import find_call, transcript_for

    path = transcript_for(payload)
    if path is None:
        return None
    cache = os.path.join(store.dir, "qwen", sha256_hex(path.encode("utf-8", "surrogateescape"))[:32] + ".pickle")
    found = find_call(path, cache, call_id)
    if found is None:
        return None
    transcript, leaf = found
    items = [rec for _uuid, rec in transcript.items(leaf)]
    gone = blanked(items, mc_settings(root))
    known = {e.id: e for e in store.answers(rel)}
    present: list[str] = []
    for rec in items:
        for ident, _name, dig, is_error, _chars, cleared in rec.results:
            effect = known.get(ident)
            if effect is None or cleared or ident in gone:
                continue
            if effect.digest is not None and effect.digest != dig:
                continue  # the record says something else than what was kept
            if effect.digest is None and is_error:
                continue  # an edit that failed changed nothing
            present.append(ident)
    return Proof(present)


def blanked(items, settings: tuple[float, int, float]) -> set[str]:
    """The results Qwen's microcompaction may have blanked by the time of the last
    record: before a model request that came *minutes* or more after the previous
    response, at `/compress-fast`, or once the results add up to half its size
    threshold, every compactable result but the newest *keep*."""
    minutes, keep, size = settings
    seen: list[str] = []
    gone: set[str] = set()
    total = 0
    last_response: float | None = None

    def clear() -> None:
        gone.update(seen[:-keep] if keep > 0 else seen)

    for rec in items:
        if rec.kind == "assistant" and rec.time is not None:
            if minutes >= 0 and last_response is not None and rec.time - last_response >= minutes * 60 - IDLE_MARGIN_SECONDS:
                clear()
            last_response = rec.time
        if rec.kind == "slash_command" and "compress-fast" in (rec.command or ""):
            clear()
        for ident, name, _dig, is_error, chars, cleared in rec.results:
            if name in COMPACTABLE and chars > 0 and not is_error and not cleared:
                seen.append(ident)
                total += chars
        if size >= 0 and total >= size / 2:
            clear()
    return gone


def mc_settings(root: str) -> tuple[float, int, float]:
    """(idle minutes, results kept, size threshold in characters) of Qwen's
    microcompaction: `context.clearContextOnIdle` of the project's settings over the
    user's, `$QWEN_MC_KEEP_RECENT`; Qwen's defaults (60, 5, 500,000) otherwise."""
    merged: dict = {}
    for path in (os.path.join(os.path.expanduser("~"), ".qwen", "settings.json"),
                 os.path.join(root, ".qwen", "settings.json")):
        merged.update(_clear_on_idle(path))
    minutes = merged.get("toolResultsThresholdMinutes", 60)
    minutes = float(minutes) if isinstance(minutes, (int, float)) and not isinstance(minutes, bool) else 60.0
    keep = merged.get("toolResultsNumToKeep")
    env = os.environ.get("QWEN_MC_KEEP_RECENT", "").strip()
    if env.lstrip("-").isdigit():
        keep = int(env)
    keep = max(1, keep) if isinstance(keep, int) and not isinstance(keep, bool) else 5
    size = merged.get("toolResultsTotalCharsThreshold")
    if not (isinstance(size, (int, float)) and not isinstance(size, bool)):
        size = -1 if minutes < 0 else 500_000
    return minutes, keep, float(size)


def _clear_on_idle(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError):
        return {}
    from ..installers.jsonc_edit import JsoncError, loads

    try:
        data = loads(text)
    except (JsoncError, ValueError):
        return {}
    context = data.get("context") if isinstance(data, dict) else None
    found = context.get("clearContextOnIdle") if isinstance(context, dict) else None
    return found if isinstance(found, dict) else {}
