"""`tldrs session edit`: the model's own edit kept as an answer, for a host that names
the answers in its context (pi's extension). Real processes and repositories: a read,
the model's edit on disk, the edit kept, and the next read against the present set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TEXT = "".join(f"line {n} of a text the model reads and edits\n" for n in range(1, 41))
LINE_10 = "line 10 of a text the model reads and edits\n"
NEW_10 = "line 10, edited\nline 10b, added by the edit\n"


def run(root: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "SYMBOLPACK_SESSION_ID"}
    return subprocess.run([sys.executable, "-m", "symbolpack.cli", *args], cwd=root, env=env, input=stdin,
                          capture_output=True, text=True, timeout=60)


def read(root: Path, answer_id: str, present: str, *extra: str) -> dict:
    proc = run(root, "read", "notes.txt", "--format", "json", "--session-id", "pi-1", "--answer-id", answer_id,
               "--present", present, *extra)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def edit(root: Path, answer_id: str, present: str, stdin: str, *how: str, path: str = "notes.txt"):
    return run(root, "session", "edit", path, "--answer-id", answer_id, "--present", present, *how, stdin=stdin)


@pytest.fixture
def repo(make_repo):
    return make_repo({"notes.txt": TEXT})


def test_a_kept_edit_that_adds_a_line_folds_into_the_next_read(repo):
    assert read(repo, "r1", "")["mode"] == "full"
    (repo / "notes.txt").write_text(TEXT.replace(LINE_10, NEW_10))
    edits = [{"old": LINE_10, "new": NEW_10}]  # whole lines: the model holds every line after it
    kept = edit(repo, "e1", "r1", json.dumps(edits), "--edits", "--together")
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout == "notes.txt: your edit is kept as answer e1\n"
    again = read(repo, "r2", "r1,e1")
    # the edit's lines are shown (a model read "[UNCHANGED]" after its edit as "not applied"),
    # the rest leans on the read and on the lines the edit moved
    assert again["mode"] == "delta" and again["total_lines"] == 41
    assert [(s["kind"], s["start"], s["end"]) for s in again["segments"] if s["kind"] == "shown"] == [("shown", 10, 11)]
    assert "Your own edit is shown as it is now." in again["text"]
    assert again["leans_on"] == ["r1"]
    assert read(repo, "r3", "r1,e1,r2")["mode"] == "unchanged"


def test_without_the_edit_in_the_present_set_the_read_does_not_lean_on_it(repo):
    """/tree back past the edit (the file on disk keeps it): the copy is the read's."""
    read(repo, "r1", "")
    (repo / "notes.txt").write_text(TEXT.replace("line 10 of", "line 10 (edited) of\nline 10b of"))
    edit(repo, "e1", "r1", json.dumps([{"old": "line 10 of", "new": "line 10 (edited) of\nline 10b of"}]),
         "--edits")
    back = read(repo, "r2", "r1")
    assert back["mode"] in ("delta", "diff") and "line 10b of" in back["text"] and "e1" not in back["leans_on"]


def test_an_edit_the_copy_does_not_hold_once_keeps_nothing_of_the_file(repo):
    read(repo, "r1", "")
    (repo / "notes.txt").write_text(TEXT.replace("line 3 of", "LINE 3 of"))
    kept = edit(repo, "e1", "r1", json.dumps([{"old": " of a text", "new": " OF A TEXT"}]), "--edits", "--together")
    assert kept.returncode == 0, kept.stderr  # 40 occurrences: pi would refuse it; the copy cannot place it
    assert read(repo, "r2", "r1,e1")["mode"] == "full"


def test_a_write_is_held_whole_unless_the_file_is_not_what_was_written(repo):
    written = "".join(f"row {n} written by the model\n" for n in range(1, 31))
    (repo / "notes.txt").write_text(written)
    assert edit(repo, "w1", "", written, "--write").returncode == 0
    assert read(repo, "r1", "w1")["mode"] == "unchanged"
    (repo / "notes.txt").write_text(written + "row 31 added by someone else\n")
    assert edit(repo, "w2", "", written, "--write").returncode == 0  # the file is not what was written
    assert read(repo, "r2", "w2")["mode"] == "full"


@pytest.mark.parametrize("args, stdin, says", [
    (("--edits",), "not json", "--edits: stdin is not JSON"),
    (("--edits",), "{}", "must be a non-empty JSON list"),
    (("--edits",), "[]", "must be a non-empty JSON list"),
    (("--edits",), '[{"old": "a"}]', "item 0 is not"),
    (("--edits",), '[{"old": "a", "new": "b", "replace_all": "yes"}]', "item 0 is not"),
    (("--edits",), '[{"old": "a", "new": "b", "extra": 1}]', "item 0 is not"),
    ((), "", "exactly one of --edits"),
    (("--edits", "--write"), "", "exactly one of --edits"),
    (("--write", "--together"), "x", "--together applies to --edits only"),
])
def test_bad_input_is_one_line_and_exit_2(repo, args, stdin, says):
    proc = edit(repo, "e1", "", stdin, *args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and says in proc.stderr and "Traceback" not in proc.stderr


def test_an_edit_needs_an_answer_id_a_present_set_and_a_file(repo):
    no_id = run(repo, "session", "edit", "notes.txt", "--present", "", "--write", stdin="x")
    no_present = run(repo, "session", "edit", "notes.txt", "--answer-id", "e1", "--write", stdin="x")
    assert no_id.returncode == 2 and "--answer-id" in no_id.stderr
    assert no_present.returncode == 2 and "--present" in no_present.stderr
    missing = edit(repo, "e1", "", "x", "--write", path="gone.txt")
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1 and "no such file" in missing.stderr
