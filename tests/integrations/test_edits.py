"""The model's own edit as an answer (`edits.edit_effect`): folded with the answers
present, it gives the copy the model believes after its edit -- its lines moved by
its own edit only, what it wrote whole, nothing it cannot prove."""

from __future__ import annotations

import hashlib

from symbolpack.integrations.edits import edit_effect
from symbolpack.reads.answers import fold, shown_effect

V0 = ["a = 1", "b = 2", "c = 3", "d = 4", "e = 5"]


def sha(lines: list[str]) -> str:
    return hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest()


def held(lines_by_sha: dict, effects) -> dict[int, str]:
    copy = fold(effects, lines_by_sha.get).copy
    texts, known = copy.texts(lines_by_sha.get, copy.extent())
    return {n: texts[n] for n in range(1, copy.extent() + 1) if known[n]}


def read_then_edit(disk: list[str], old: str, new: str, start: int = 1, end: int = 5):
    versions = {sha(V0): V0, sha(disk): disk}
    read = shown_effect("read", sha(V0), start, end, 5 if (start, end) == (1, 5) else None, 1)
    before = fold([read], versions.get).copy
    edit = edit_effect("edit", sha(disk), before, versions.get, [(old, new, False)], disk, True, 2)
    return versions, read, edit


def test_lines_an_edit_moves_are_the_models_lines_at_their_new_places():
    disk = ["a = 1", "b = 2", "x = 0", "c = 3", "d = 4", "e = 5"]
    versions, read, edit = read_then_edit(disk, "b = 2\n", "b = 2\nx = 0\n")
    assert held(versions, [read, edit]) == dict(enumerate(disk, start=1))
    assert fold([read, edit], versions.get).copy.length == 6


def test_without_the_read_only_what_the_edit_wrote_whole_is_held():
    disk = ["a = 1", "b = 2", "x = 0", "c = 3", "d = 4", "e = 5"]
    versions, _read, edit = read_then_edit(disk, "b = 2\n", "b = 2\nx = 0\n")
    assert held(versions, [edit]) == {2: "b = 2", 3: "x = 0"}


def test_a_line_written_in_part_is_not_proved_by_the_edit():
    """Line 2 is "b = " from the read and "20" from the edit: an effect cannot say "held
    while the read is", so it is unknown either way (the next answer shows it again).
    Line 3 keeps its text ("c" rewritten as it was): the model's line, as it held it."""
    disk = ["a = 1", "b = 20", "c = 3", "d = 4", "e = 5"]
    versions, read, edit = read_then_edit(disk, "2\nc", "20\nc")
    assert held(versions, [edit]) == {}
    assert held(versions, [read, edit]) == {1: "a = 1", 3: "c = 3", 4: "d = 4", 5: "e = 5"}


def test_an_outside_change_under_the_edit_leaves_the_moved_lines_unknown():
    """A line inserted on disk before the edit: the model, told nothing of it, believes
    its lines where its own edit put them; where that is not the file's text, it holds
    nothing (never the text one line off)."""
    disk = ["# top", "a = 1", "b = 2", "c = 30", "d = 4", "e = 5"]
    versions, read, edit = read_then_edit(disk, "c = 3", "c = 30")
    now = held(versions, [read, edit])
    assert all(disk[n - 1] == text for n, text in now.items()), now
    assert 4 not in now or now[4] == "c = 30"


def test_an_edit_the_copy_cannot_replay_forgets_the_file():
    disk = ["a = 1", "b = 2", "c = 3", "d = 4", "e = 5", "zz"]
    versions, read, edit = read_then_edit(disk, "not in the copy", "zz")
    assert held(versions, [read, edit]) == {}
