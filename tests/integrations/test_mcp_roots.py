"""The MCP tools' workspace fence, on real directories and symlinks."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from symbolpack.integrations.mcp import roots as mcp_roots
from symbolpack.integrations.mcp.roots import Bounds, OutsideWorkspace


@pytest.fixture
def tree(tmp_path):
    for d in ("proj/src", "proj2", "other", "docs"):
        (tmp_path / d).mkdir(parents=True)
    for f in ("proj/src/a.py", "proj2/b.py", "other/c.py", "docs/d.md"):
        (tmp_path / f).write_text("x\n")
    (tmp_path / "proj" / "out").symlink_to(tmp_path / "other")
    (tmp_path / "proj" / "self").symlink_to(tmp_path / "proj" / "src")
    return tmp_path


def refused(bounds: Bounds, path: Path) -> bool:
    try:
        bounds.check(str(path))
    except OutsideWorkspace:
        return True
    return False


def test_the_project_is_the_workspace_without_roots(tree):
    bounds = Bounds(str(tree / "proj"))
    assert not refused(bounds, tree / "proj" / "src" / "a.py")
    assert not refused(bounds, tree / "proj" / "self" / "a.py")  # a link that stays inside
    assert not refused(bounds, tree / "proj" / "missing.py")  # judged by place; the read says it is missing
    assert refused(bounds, tree / "proj" / "out" / "c.py")  # a link that leads out
    assert refused(bounds, tree / "proj" / ".." / "other" / "c.py")
    assert refused(bounds, tree / "proj2" / "b.py")  # a sibling whose name starts like the project
    with pytest.raises(OutsideWorkspace) as err:
        bounds.check(str(tree / "other" / "c.py"))
    assert str(err.value) == (f"{tree / 'other' / 'c.py'} is outside the workspace ({os.path.realpath(tree / 'proj')}); "
                              f"{mcp_roots.HOW_TO_ALLOW}")


def test_allowed_directories_add_to_the_workspace(tree):
    bounds = Bounds(str(tree / "proj"), [str(tree / "docs")])
    assert not refused(bounds, tree / "docs" / "d.md") and refused(bounds, tree / "other" / "c.py")
    assert not refused(Bounds(str(tree / "proj"), ["/"]), tree / "other" / "c.py")  # / allows every path


def test_the_clients_roots_replace_the_project(tree):
    bounds = Bounds(str(tree / "proj"))
    bounds.roots_requested()
    bounds.roots_answered([(tree / "other").as_uri(), "https://example.com/repo", "file://remote-host/srv"])
    assert bounds.workspace() == (os.path.realpath(tree / "other"),)  # other schemes and hosts are not local
    assert not refused(bounds, tree / "other" / "c.py") and refused(bounds, tree / "proj" / "src" / "a.py")
    spaced = tree / "with space"
    spaced.mkdir()
    bounds.roots_answered([spaced.as_uri()])  # percent-encoded
    assert bounds.workspace() == (os.path.realpath(spaced),)
    bounds.roots_answered([])  # no roots listed: the project again
    assert bounds.workspace() == (os.path.realpath(tree / "proj"),)
    bounds.roots_answered(None)  # an error instead of a list: the project
    assert bounds.workspace() == (os.path.realpath(tree / "proj"),)


def test_judging_waits_for_roots_asked_for(tree):
    bounds = Bounds(str(tree / "proj"))
    bounds.roots_requested()
    answer = threading.Timer(0.2, bounds.roots_answered, [[(tree / "other").as_uri()]])
    answer.start()
    try:
        assert not refused(bounds, tree / "other" / "c.py")  # judged by the roots that arrived meanwhile
    finally:
        answer.cancel()


def test_a_client_that_never_lists_its_roots_is_not_waited_for_twice(tree, monkeypatch, caplog):
    monkeypatch.setattr(mcp_roots, "ROOTS_WAIT_SECONDS", 0.05)
    bounds = Bounds(str(tree / "proj"))
    bounds.roots_requested()
    with caplog.at_level("WARNING", logger="symbolpack"):
        assert bounds.workspace() == (os.path.realpath(tree / "proj"),)
        assert bounds.workspace() == (os.path.realpath(tree / "proj"),)
    assert len(caplog.records) == 1 and "did not list its roots" in caplog.records[0].getMessage()
    bounds.roots_answered([(tree / "other").as_uri()])  # a late answer still counts
    assert bounds.workspace() == (os.path.realpath(tree / "other"),)
