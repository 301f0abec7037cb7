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
    edit.base = (read.id,)  # as `own_edits.keep_own_edit` keeps it: made on the read's copy
    return versions, read, edit


def test_lines_an_edit_moves_are_the_models_lines_at_their_new_places():
    disk = ["a = 1", "b = 2", "x = 0", "c = 3", "d = 4", "e = 5"]
    versions, read, edit = read_then_edit(disk, "b = 2\n", "b = 2\nx = 0\n")
    assert held(versions, [read, edit]) == dict(enumerate(disk, start=1))
    assert fold([read, edit], versions.get).copy.length == 6


def test_without_the_read_it_was_made_on_the_edit_gives_nothing():
    """The edit's lines are numbered as in the copy it was made on: without that copy
    the model knows what it wrote, not at which lines."""
    disk = ["a = 1", "b = 2", "x = 0", "c = 3", "d = 4", "e = 5"]
    versions, _read, edit = read_then_edit(disk, "b = 2\n", "b = 2\nx = 0\n")
    assert held(versions, [edit]) == {}
    edit.base = None  # the effect alone, as if its copy were there: what it wrote whole
    assert held(versions, [edit]) == {2: "b = 2", 3: "x = 0"}


def test_a_line_written_in_part_is_not_proved_by_the_edit():
    """Line 2 is "b = " from the read and "20" from the edit: an effect cannot say "held
    while the read is", so it is unknown either way (the next answer shows it again).
    Line 3 keeps its text ("c" rewritten as it was): the model's line, as it held it."""
    disk = ["a = 1", "b = 20", "c = 3", "d = 4", "e = 5"]
    versions, read, edit = read_then_edit(disk, "2\nc", "20\nc")
    assert held(versions, [edit]) == {}
    assert held(versions, [read, edit]) == {1: "a = 1", 3: "c = 3", 4: "d = 4", 5: "e = 5"}


def test_an_outside_change_under_the_edit_leaves_the_models_belief_as_it_is():
    """A line inserted on disk before the edit, which the model was not told of: it
    believes its lines where its own edit left them (the read's text, at the read's
    numbers: the next answer is a delta from that belief to the file). Its written
    line is where no version has that text: unknown, never a text at another line."""
    disk = ["# top", "a = 1", "b = 2", "c = 30", "d = 4", "e = 5"]
    versions, read, edit = read_then_edit(disk, "c = 3", "c = 30")
    assert held(versions, [read, edit]) == {1: "a = 1", 2: "b = 2", 4: "d = 4", 5: "e = 5"}
    # an edit that adds a line moves what follows: moved lines are held only where the
    # file has that text at the new place (a copy's line is its version's line there)
    grown = ["# top", "a = 1", "b = 2", "c = 3", "x = 0", "d = 4", "e = 5"]
    versions, read, edit = read_then_edit(grown, "c = 3\n", "c = 3\nx = 0\n")
    now = held(versions, [read, edit])
    assert {n: t for n, t in now.items() if n <= 4} == {1: "a = 1", 2: "b = 2"}  # not moved; 3-4 written, elsewhere
    assert all(grown[n - 1] == t for n, t in now.items() if n > 4), now  # moved: only where the text agrees


def test_an_edit_the_copy_cannot_replay_forgets_the_file():
    disk = ["a = 1", "b = 2", "c = 3", "d = 4", "e = 5", "zz"]
    versions, read, edit = read_then_edit(disk, "not in the copy", "zz")
    assert held(versions, [read, edit]) == {}


# --------------------------------------------------------------------------- pi's edit: matched all at once

def replayed(edits, together: bool):
    from symbolpack.integrations.edits import KNOWN, replay

    text = "\n".join(V0) + "\n"
    out = replay(text, [KNOWN] * len(text.split("\n")), edits, together=together)
    return None if out is None else out[0]


def test_together_every_old_text_is_matched_in_the_text_before_the_edit():
    """pi's edit: `c = 3` is found once in the file before the call, whatever the first
    replacement writes; applied in turn (Claude's MultiEdit) the second would be ambiguous."""
    edits = [("b = 2", "b = 2\nc = 3", False), ("c = 3", "c = 30", False)]
    assert replayed(edits, together=True) == "a = 1\nb = 2\nc = 3\nc = 30\nd = 4\ne = 5\n"
    assert replayed(edits, together=False) is None


def test_together_refuses_what_pi_refuses():
    assert replayed([("= ", "=", False)], together=True) is None                       # not unique
    assert replayed([("", "x", False)], together=True) is None                         # empty oldText
    assert replayed([("a = 1\nb", "x", False), ("b = 2", "y", False)], together=True) is None  # overlapping
    assert replayed([("zz", "x", False)], together=True) is None                       # not there


def test_an_edit_matched_together_moves_the_lines_below_it():
    disk = ["a = 1", "b = 20", "x = 0", "c = 3", "d = 40", "e = 5"]
    versions = {sha(V0): V0, sha(disk): disk}
    read = shown_effect("read", sha(V0), 1, 5, 5, 1)
    before = fold([read], versions.get).copy
    edits = [("d = 4\n", "d = 40\n", False), ("b = 2\n", "b = 20\nx = 0\n", False)]
    edit = edit_effect("edit", sha(disk), before, versions.get, edits, disk, True, 2, together=True)
    assert held(versions, [read, edit]) == dict(enumerate(disk, start=1))


def test_an_edit_of_lines_the_model_never_held_that_moves_none_keeps_its_other_lines():
    """A one-line fix inside lines the model never held (here: past the range it read):
    its lines stay where they were, and the line it wrote is unknown -- it never saw
    that line's number -- even where the file has exactly what it wrote."""
    disk = ["a = 1", "b = 2", "c = 3", "d = 40", "e = 5"]
    versions, read, edit = read_then_edit(disk, "d = 4", "d = 40", start=1, end=3)
    assert held(versions, [read, edit]) == {1: "a = 1", 2: "b = 2", 3: "c = 3"}
    assert fold([read, edit], versions.get).copy.length is None


def test_an_edit_of_lines_the_model_never_held_that_moves_lines_forgets_the_file():
    """Two lines for one inside lines the model never held: which of its lines moved
    depends on where, which it never saw."""
    disk = ["a = 1", "b = 2", "c = 3", "d = 4", "x = 0", "e = 5"]
    versions, read, edit = read_then_edit(disk, "d = 4\n", "d = 4\nx = 0\n", start=1, end=3)
    assert held(versions, [read, edit]) == {}


def test_an_edit_of_unheld_lines_whose_text_is_not_in_the_file_forgets_the_file():
    """What the edit wrote is nowhere in the file (a later edit of the same call rewrote
    it): where it wrote cannot be told."""
    disk = ["a = 1", "b = 2", "c = 3", "d = 44", "e = 5"]
    versions, read, edit = read_then_edit(disk, "d = 4", "d = 40", start=1, end=3)
    assert held(versions, [read, edit]) == {}
