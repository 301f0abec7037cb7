"""`own_edits`: the model's own edit kept as an answer in a real store, folded with the
answers present when it ran; a write held whole; a file that cannot be followed, or is
not what was written, unknown from the edit on."""

from __future__ import annotations

from pathlib import Path

import pytest

from symbolpack.api.operations import Workspace, read_file
from symbolpack.integrations.own_edits import keep_own_edit, record_own_edit
from symbolpack.reads.answers import fold, in_fold_order

TEXT = "".join(f"value_{n} = {n}\n" for n in range(1, 31))


@pytest.fixture
def ws(make_repo):
    root = make_repo({"values.py": TEXT})
    workspace = Workspace(root)
    yield workspace
    workspace.close()


def held(ws: Workspace, present: list[str]) -> dict[int, str]:
    store = ws.store
    effects = in_fold_order(present, store.answers("values.py"))
    from symbolpack.integrations.edits import loader

    load = loader(store)
    copy = fold(effects, load).copy
    texts, known = copy.texts(load, copy.extent())
    return {n: texts[n] for n in range(1, copy.extent() + 1) if known[n]}


def read(ws: Workspace, answer_id: str, present: list[str]) -> dict:
    return read_file(ws, Path(ws.root_dir) / "values.py", "s", answer_id=answer_id, present=present,
                     force_full=True).response


def test_an_edit_is_its_copy_before_with_the_edit_applied(ws):
    read(ws, "r1", [])
    path = Path(ws.root_dir) / "values.py"
    path.write_text(TEXT.replace("value_5 = 5\n", "value_5 = 50\nvalue_5b = 5\n"))
    rel = record_own_edit(ws.store, ws.root_dir, str(path), "e1", ["r1"],
                          edits=[("value_5 = 5\n", "value_5 = 50\nvalue_5b = 5\n", False)], together=True)
    assert rel == "values.py"
    assert held(ws, ["r1", "e1"]) == dict(enumerate(path.read_text().splitlines(), start=1))
    # without the read the model knows what it wrote, not at which lines: the edit's lines
    # were the read's numbers (`answers.fold`: an own edit without its base forgets the file)
    assert held(ws, ["e1"]) == {}


def test_a_write_is_held_whole_and_a_write_the_file_no_longer_is_forgets_the_file(ws):
    path = Path(ws.root_dir) / "values.py"
    read(ws, "r1", [])
    written = "x = 1\ny = 2\n"
    path.write_text(written)
    record_own_edit(ws.store, ws.root_dir, str(path), "w1", ["r1"], written=written)
    assert held(ws, ["r1", "w1"]) == {1: "x = 1", 2: "y = 2"}
    record_own_edit(ws.store, ws.root_dir, str(path), "w2", ["r1"], written="something else\n")
    assert held(ws, ["r1", "w2"]) == {}


def test_a_file_that_cannot_be_followed_is_unknown_from_the_edit_on(ws):
    read(ws, "r1", [])
    keep_own_edit(ws.store, "values.py", "e1", ["r1"], None, None)
    assert held(ws, ["r1"]) and held(ws, ["r1", "e1"]) == {}


def test_a_sensitive_file_is_kept_as_unknown(ws):
    secret = Path(ws.root_dir) / ".env"
    secret.write_text("TOKEN=1\n")
    assert record_own_edit(ws.store, ws.root_dir, str(secret), "e1", [], written="TOKEN=1\n") == ".env"
    assert [e.sha for e in ws.store.answers(".env")] == [None]  # nothing of the file stored
