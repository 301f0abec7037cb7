"""Which files of a snapshot mention a name as a whole word: the first step of a
caller search (`CallGraph.callers`, `guess`, tests named by name).

Reading every file of a big tree to look for one name costs seconds, so the
candidates come from `git grep -lw` (C, threaded, run while the parseable files
are listed) and only those are read and confirmed here, with the word rule the
graph has always used (`_`, `$` and ASCII letters and digits are word
characters). Names git's word rule cannot express, and snapshots git cannot
search, fall back to reading every parseable file.
"""

from __future__ import annotations

import re

from ..engine.languages import has_query, language_for_path
from ..state.snapshot import Snapshot
from ..engine.sources import is_sensitive

TYPE_CHECKING = False  # `typing` costs ~3 ms at start-up; only type checkers need it
if TYPE_CHECKING:
    from typing import Iterable

# names `git grep -w` matches exactly where `mentions` does (word characters both agree on)
_GIT_WORD = re.compile(r"[A-Za-z0-9_]+")

_DEFINITION_PREFIXES = tuple(
    k.encode() + sep
    for k in ("def", "fn", "func", "function", "fun", "class", "struct", "interface", "trait", "enum", "sub",
              "macro_rules!")
    for sep in (b" ", b"\t"))


class NameSearch:
    """Files of one snapshot that mention names, memoised per name."""

    def __init__(self, snap: Snapshot, sensitive: tuple[str, ...] = ()):
        self.snap = snap
        self.sensitive = sensitive  # the settings' extra sensitive-name patterns
        self._found: dict[tuple[str, bool], set[str]] = {}
        self._candidates: dict[str, list[str]] = {}  # name -> files git grep says may mention it
        self._parseable: list[str] | None = None

    def files(self, names: Iterable[str], uses_only: bool = False) -> list[str]:
        """Parsed-language files whose bytes mention one of *names* as a word; with
        *uses_only*, at least once not right after a definition keyword (`def name`),
        so a file that only defines a common method name is not parsed for callers."""
        wanted = {n for n in names if n}
        self._prefilter([n for n in wanted if (n, False) not in self._found])
        found: set[str] = set()
        for name in wanted:
            found |= self._one(name, uses_only)
        return sorted(found)

    def _one(self, name: str, uses_only: bool) -> set[str]:
        key = (name, uses_only)
        if key not in self._found:
            if uses_only:
                pool: Iterable[str] = self._one(name, False)
            else:
                narrowed = self._candidates.pop(name, None)
                if narrowed is None:  # git could not narrow it: every parseable file
                    narrowed = self.parseable()
                    self.snap.read_many(narrowed)
                pool = narrowed
            needle = name.encode()
            self._found[key] = {p for p in pool if mentions(self.snap.read(p), needle, uses_only)}
        return self._found[key]

    def _prefilter(self, names: list[str]) -> None:
        """Candidates for each of *names* from one `git grep -lw` (no file read here)."""
        plain = [n for n in names if _GIT_WORD.fullmatch(n) and n not in self._candidates]
        if not plain:
            return
        answer = self.snap.grep_words(plain)
        parseable = set(self.parseable())  # listed while git searches
        hits = answer()
        if hits is None:
            return
        # seeded bytes are the snapshot's truth even if the file changed since git read it
        pool = sorted(p for p in hits | self.snap.seeded if p in parseable)
        for n in plain:
            self._candidates[n] = pool

    def parseable(self) -> list[str]:
        if self._parseable is None:
            self._parseable = [p for p in self.snap.paths()
                               if has_query(language_for_path(p)) and not is_sensitive(p, self.sensitive)]
        return self._parseable


def mentions(data: bytes | None, needle: bytes, uses_only: bool) -> bool:
    """*needle* occurs in *data* as a whole word (with *uses_only*: not as `def needle`)."""
    if not data or needle not in data:
        return False
    size = len(needle)
    pos = data.find(needle)
    while pos != -1:
        before, after = data[pos - 1:pos], data[pos + size:pos + size + 1]
        if not (before and (before.isalnum() or before in b"_$")) and not (after and (after.isalnum() or after in b"_$")):
            if not uses_only or not data[max(0, pos - 16):pos].endswith(_DEFINITION_PREFIXES):
                return True
        pos = data.find(needle, pos + 1)
    return False
