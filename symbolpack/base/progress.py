"""Progress bars for long work (a cold index of a big tree, `eval --repo`).

A bar is drawn by tqdm on stderr, only when stderr is a terminal (or the caller
forces it), and only once the work has run for a second, so quick commands and
piped or machine-read output (`--format json`, hooks, the MCP server) stay
silent. tqdm is imported only when a bar may be drawn: a hook's start-up never
pays for it.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator

_DELAY_S = 1.0


@contextmanager
def progress_bar(total: int | None, label: str, enabled: bool | None = True,
                 unit: str = "file") -> Iterator[Callable[[int], None]]:
    """Yields `advance(n)`, drawn on stderr when it is a terminal unless *enabled* is False."""
    bar = _open(total, label, unit, bool(enabled) and sys.stderr.isatty())
    try:
        yield (bar.update if bar is not None else _ignore)
    finally:
        if bar is not None:
            bar.close()


def _open(total, label: str, unit: str, draw: bool, delay: float = _DELAY_S):
    if not draw:
        return None
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]
    except ImportError:  # an install without it: no bar, same work
        return None
    return tqdm(total=total, desc=label, unit=unit, file=sys.stderr, delay=delay, leave=False, dynamic_ncols=True)


class StepProgress:
    """`progress(done, total, label)` callbacks (the eval's replay) drawn as one bar:
    on a terminal, or always when *enabled* is True, never when it is False."""

    def __init__(self, label: str, enabled: bool | None = None, unit: str = "commit"):
        self.label, self.unit = label, unit
        self.draw = sys.stderr.isatty() if enabled is None else enabled
        self._bar = None

    def __call__(self, done: int, total: int, label: str) -> None:
        if not self.draw:
            return
        if self._bar is None:
            self._bar = _open(total, self.label, self.unit, True, delay=0.0)
            if self._bar is None:
                self.draw = False
                return
        self._bar.set_postfix_str(label[:40], refresh=False)
        self._bar.update(done - self._bar.n)
        if done >= total:
            self._bar.close()
            self._bar = None


def _ignore(n: int = 1) -> None:
    return None
