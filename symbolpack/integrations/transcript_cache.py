"""A host transcript's parse, kept between hook processes (Claude Code, Qwen Code).

Every hook process would otherwise parse the whole transcript again; the parse is kept
in a private pickle beside the session's state, under a version, and parsed again from
where it stopped. A missing, torn or other-version file is simply parsed again, and a
failed write only costs the next hook a parse: never a decision taken on a stale parse
(the parse records how far into the file it read).
"""

from __future__ import annotations

import os
import pickle

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")


def load(cache_path: str, version: int, kind: type[T]) -> T:
    """The kept parse, or a new empty *kind*."""
    try:
        with open(cache_path, "rb") as fh:
            kept_version, value = pickle.load(fh)
        if kept_version == version and isinstance(value, kind):
            return value
    except Exception:  # missing, torn or from another version: parse again
        pass
    return kind()


def save(cache_path: str, version: int, value: object) -> None:
    from ..base.workspace import atomic_write, ensure_private_dir

    try:
        ensure_private_dir(os.path.dirname(cache_path))
        atomic_write(cache_path, pickle.dumps((version, value), protocol=pickle.HIGHEST_PROTOCOL), 0o600,
                     durable=False)
    except OSError:
        pass  # the next hook parses again
