"""`tldrs read` and `tldrs session` end to end: real processes, real git repositories,
and every bad input and fault the reads issue names."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from conftest import read_json, tldrs


@pytest.fixture
def repo(app_repo):
    return app_repo


def all_store_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (root / ".symbolpack").rglob("*") if p.is_file())


def test_read_modes_through_the_cli(repo):
    first = read_json(repo, "src/app.py")
    assert first["mode"] == "skeleton" and first["path"] == "src/app.py"
    again = read_json(repo, "src/app.py")
    assert again["mode"] == "unchanged"
    text = tldrs(repo, "read", "src/app.py", "--session-id", "t1", check=True).stdout
    assert text.startswith("[UNCHANGED] src/app.py")
    drill = read_json(repo, "src/app.py", "--symbol", "f3")
    # the symbol whole, the signature and docstring the skeleton showed too: what was asked for
    assert drill["mode"] == "range" and drill["text"].startswith('    63\tdef f3(x):\n    64\t    """Doc 3."""\n')
    miss = tldrs(repo, "read", "src/app.py", "--session-id", "t1", "--symbol", "f33x")
    assert miss.returncode != 0 and "did you mean" in miss.stderr and "Traceback" not in miss.stderr
    status = json.loads(tldrs(repo, "session", "status", "--session-id", "t1", "--json", check=True).stdout)
    assert status["reads"] == 4 and status["drill_ins"] == 1
    assert status["reads_by_mode"] == {"skeleton": 1, "unchanged": 2, "range": 1}
    assert status["recent_drill_ins"][0]["hidden"] is True


def test_refresh_makes_the_next_read_full(repo):
    read_json(repo, "src/app.py")
    tldrs(repo, "session", "refresh", "src/app.py", "--session-id", "t1", check=True)
    assert read_json(repo, "src/app.py")["mode"] == "full"
    assert read_json(repo, "src/app.py")["mode"] == "unchanged"


def test_tiny_file_reread_is_never_costlier_than_the_file(repo):
    read_json(repo, "notes.txt")
    again = read_json(repo, "notes.txt")  # a marker would cost more than 2 short lines
    assert again["mode"] == "full" and again["tokens"] <= again["full_tokens"]


def test_sessions_are_separate_and_clearable(repo):
    read_json(repo, "src/app.py", session="a")
    assert read_json(repo, "src/app.py", session="b")["mode"] == "skeleton"
    listing = json.loads(tldrs(repo, "session", "list", "--json", check=True).stdout)
    assert {s["id"] for s in listing["sessions"]} == {"a", "b"}
    assert read_json(repo, "src/app.py", session="a")["mode"] == "unchanged"
    tldrs(repo, "session", "clear", "--session-id", "a", check=True)
    assert read_json(repo, "src/app.py", session="a")["mode"] == "skeleton"


def test_binary_and_non_utf8_are_passthrough_and_not_stored(repo):
    (repo / "blob.bin").write_bytes(b"\x00\x01secret-binary")
    (repo / "latin.txt").write_bytes("caf\xe9 secret-latin".encode("latin-1"))
    for name in ("blob.bin", "latin.txt"):
        r = read_json(repo, name)
        assert r["mode"] == "passthrough" and "secret" not in r["text"]
    assert b"secret-binary" not in all_store_bytes(repo) and b"secret-latin" not in all_store_bytes(repo)
    assert b"blob.bin" not in all_store_bytes(repo)


def test_sensitive_files_never_reach_the_store(repo):
    (repo / ".env").write_text("API_KEY=hunter2-very-secret\n")
    (repo / "server.pem").write_text("-----BEGIN KEY----- hunter2\n")
    for name in (".env", "server.pem"):
        r = read_json(repo, name)
        assert r["mode"] == "passthrough" and "hunter2" not in r["text"]
    assert b"hunter2" not in all_store_bytes(repo)
    assert b".env" not in all_store_bytes(repo)
    proc = tldrs(repo, "read", "notes.txt", "--session-id", "t1", "--format", "json",
                 env={"SYMBOLPACK_SENSITIVE": "notes.*"})
    assert json.loads(proc.stdout)["mode"] == "passthrough"


def test_special_and_huge_files_are_refused_without_reading(repo, tmp_path):
    r = json.loads(tldrs(repo, "read", "/dev/zero", "--session-id", "t1", "--format", "json", check=True).stdout)
    assert r["mode"] == "passthrough" and "not a regular file" in r["text"]
    huge = repo / "huge.log"
    with open(huge, "wb") as fh:
        fh.truncate(51 * 1024 * 1024)  # sparse: refusing it must not need reading it
    r = read_json(repo, "huge.log")
    assert r["mode"] == "passthrough" and "50 MB" in r["text"]


def test_symlinks_are_keyed_by_their_real_path(repo):
    (repo / "link.py").symlink_to(repo / "src" / "app.py")
    first = read_json(repo, "link.py")
    assert first["path"] == "src/app.py"
    assert read_json(repo, "src/app.py")["mode"] == "unchanged"


def test_missing_file_bad_range_and_bad_session_id_are_one_line_errors(repo):
    for args in (["read", "nope.py", "--session-id", "t1"],
                 ["read", "notes.txt", "--session-id", "t1", "--offset", "99"],
                 ["read", "notes.txt", "--session-id", "t1", "--limit", "0"],
                 ["read", "notes.txt", "--session-id", "../../etc/passwd"]):
        proc = tldrs(repo, *args)
        assert proc.returncode != 0, args
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr
    proc = tldrs(repo, "read", "nope.py", "--session-id", "t1", "--format", "json")
    assert json.loads(proc.stdout) == {"v": 1, "mode": "error", "error": proc.stderr.split("error: ", 1)[1].strip()}
    env_bad = tldrs(repo, "read", "notes.txt", env={"SYMBOLPACK_SESSION_ID": "a/b"})
    assert env_bad.returncode != 0 and "invalid session id" in env_bad.stderr


def test_deleted_since_last_read_drops_the_view(repo):
    read_json(repo, "notes.txt")
    (repo / "notes.txt").unlink()
    proc = tldrs(repo, "read", "notes.txt", "--session-id", "t1")
    assert proc.returncode != 0 and "deleted since your last read" in proc.stderr
    (repo / "notes.txt").write_text("a\nb\nc\n")
    assert read_json(repo, "notes.txt")["mode"] == "full"  # the old view was dropped


def test_corrupt_session_warns_reads_fully_and_is_repaired(repo):
    read_json(repo, "src/app.py")
    session_file = repo / ".symbolpack" / "sessions" / "t1" / "session.json"
    session_file.write_text("{not json")
    proc = tldrs(repo, "read", "src/app.py", "--session-id", "t1", "--format", "json", check=True)
    assert "warning" in proc.stderr and json.loads(proc.stdout)["mode"] == "full"
    json.loads(session_file.read_text())  # repaired
    assert read_json(repo, "src/app.py")["mode"] == "unchanged"


def test_missing_baseline_object_falls_back_to_full(repo):
    read_json(repo, "src/app.py")
    for obj in (repo / ".symbolpack" / "objects").rglob("*"):
        if obj.is_file():
            obj.unlink()
    p = repo / "src" / "app.py"
    p.write_text(p.read_text().replace("y3 = x + 3", "y3 = x - 3", 1))
    assert read_json(repo, "src/app.py")["mode"] == "full"


def test_store_is_private_and_ignored_by_git(repo):
    read_json(repo, "src/app.py")
    state = repo / ".symbolpack"
    assert (state / ".gitignore").read_text() == "*\n"
    for p in [state, *state.rglob("*")]:
        mode = stat.S_IMODE(p.stat().st_mode)
        if p.is_dir() and p.parent.name != "cache" and "cache" not in p.parts:
            assert mode == 0o700, p
        elif p.is_file() and "cache" not in p.parts:
            assert mode == 0o600, p
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    assert ".symbolpack" not in status


def test_symbolpack_dir_overrides_the_location(repo, tmp_path):
    elsewhere = tmp_path / "state"
    tldrs(repo, "read", "notes.txt", "--session-id", "t1", env={"SYMBOLPACK_DIR": str(elsewhere)}, check=True)
    assert (elsewhere / "sessions" / "t1" / "session.json").exists()
    assert not (repo / ".symbolpack" / "sessions").exists()


def test_gc_removes_unreferenced_baselines_and_expired_sessions(repo):
    read_json(repo, "notes.txt", session="old")
    read_json(repo, "src/app.py", session="new")
    stored = lambda: sorted(p for p in (repo / ".symbolpack" / "objects").rglob("*") if p.is_file())  # noqa: E731
    objects = lambda: [p for p in stored() if p.suffix != ".names"]  # noqa: E731
    assert len(objects()) == 2
    app = hashlib.sha256((repo / "src" / "app.py").read_bytes()).hexdigest()
    app_object = repo / ".symbolpack" / "objects" / app[:2] / app[2:]
    assert [p for p in stored() if p.suffix == ".names"] == [app_object.with_name(app[2:] + ".names")]  # it parsed
    # age everything past the grace window and make "old" expire
    for p in stored():
        os.utime(p, (1, 1))
    old = repo / ".symbolpack" / "sessions" / "old" / "session.json"
    data = json.loads(old.read_text())
    data["touched"] = 1
    old.write_text(json.dumps(data))
    out = json.loads(tldrs(repo, "session", "gc", "--json", check=True).stdout)
    assert out["sessions_removed"] == 1 and out["objects_removed"] == 1
    assert stored() == [app_object, app_object.with_name(app[2:] + ".names")]  # a referenced version keeps its names
    assert read_json(repo, "src/app.py", session="new")["mode"] == "unchanged"


def test_files_over_a_megabyte_are_not_diffed(repo):
    big = repo / "big.log"
    lines = [f"entry {i} " + "x" * 40 for i in range(25_000)]  # ~1.2 MB
    big.write_text("\n".join(lines) + "\n")
    assert read_json(repo, "big.log")["mode"] == "full"
    lines[10] = "changed"
    big.write_text("\n".join(lines) + "\n")
    again = read_json(repo, "big.log")
    assert again["mode"] == "full" and again["tokens"] == again["full_tokens"]
    assert read_json(repo, "big.log")["mode"] == "unchanged"  # the hash check still applies


def test_fast_read_arguments_match_argparse():
    """`tldrs read` parses its options without argparse on the hot path; both must agree."""
    from symbolpack.cli import _fast_read_args, build_parser

    for argv in (["a.py"], ["a.py", "--offset", "3", "--limit", "9"], ["--symbol", "X.y", "a.py", "--full"],
                 ["a.py", "--session-id", "s", "--format", "json", "--elide-min-lines", "5", "--no-compress"]):
        fast = vars(_fast_read_args(argv))
        slow = vars(build_parser(only="read").parse_args(["read", *argv]))
        assert fast == slow, argv
    for odd in (["--help"], ["a.py", "--offset", "x"], ["a.py", "--format", "yaml"], ["a.py", "b.py"],
                ["--offset=3", "a.py"], [], ["a.py", "--limit"]):
        assert _fast_read_args(odd) is None, odd


def test_a_file_in_no_repository_is_named_by_its_absolute_path(tmp_path):
    outside = tmp_path / "loose"
    outside.mkdir()
    (outside / "notes.txt").write_text("one\ntwo\n")
    for cwd in (outside, tmp_path):
        proc = tldrs(cwd, "read", str(outside / "notes.txt"), "--session-id", "t1", "--format", "json", check=True)
        assert json.loads(proc.stdout)["path"] == (outside / "notes.txt").resolve().as_posix()


def test_refresh_of_a_range_removes_those_lines_whatever_read_gave_them(repo):
    """A whole-file read gave lines 3-17; refreshing that range means the agent lost
    them: their next range read sends them, then they are unchanged again."""
    (repo / "long.txt").write_text("".join(f"line {n} of a longer text file\n" for n in range(1, 61)))
    assert read_json(repo, "long.txt")["mode"] == "full"
    out = tldrs(repo, "session", "refresh", "long.txt", "--offset", "3", "--limit", "15", "--session-id", "t1",
                check=True).stdout
    assert "lines 3-17" in out
    assert read_json(repo, "long.txt")["mode"] == "full"  # lines 3-17 are gaps: no marker can vouch for them
    assert read_json(repo, "long.txt")["mode"] == "unchanged"
    tldrs(repo, "session", "refresh", "long.txt", "--offset", "3", "--limit", "15", "--session-id", "t1", check=True)
    again = read_json(repo, "long.txt", "--offset", "3", "--limit", "15")
    assert again["mode"] == "range" and "line 3 of a longer" in again["text"]
    assert read_json(repo, "long.txt")["mode"] == "unchanged"  # the range gave them back


def test_a_file_outside_the_repository_is_one_copy_whichever_path_reaches_it(tmp_path, make_repo):
    """Through a symlink inside the repository and by its own path, answers show the
    same absolute name: one copy. Before, each path had its own store, and after a
    change shown through one path and a revert, the other said [UNCHANGED] for a line
    the model last saw changed."""
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "shared.txt"
    original = "".join(f"row {i}\n" for i in range(60))
    target.write_text(original)
    root = make_repo({"a.txt": "a\n"})
    (root / "link.txt").symlink_to(target)
    env = {"XDG_STATE_HOME": str(tmp_path / "xdg")}
    first = json.loads(tldrs(root, "read", "link.txt", "--session-id", "s", "--format", "json", env=env,
                             check=True).stdout)
    assert first["path"] == str(target)
    target.write_text(original.replace("row 40\n", "row forty\n"))
    direct = json.loads(tldrs(outside, "read", str(target), "--session-id", "s", "--format", "json", env=env,
                              check=True).stdout)
    assert direct["path"] == str(target) and direct["mode"] in ("diff", "delta") and "row forty" in direct["text"]
    target.write_text(original)  # reverted
    again = json.loads(tldrs(root, "read", "link.txt", "--session-id", "s", "--format", "json", env=env,
                             check=True).stdout)
    assert again["mode"] != "unchanged" and "row 40" in again["text"]


def test_a_read_without_a_session_says_so_on_stderr(repo):
    """From a script (no terminal, no agent process, no id) a read is the whole file every
    time: it says so in one line, with the way to get a session; stdout stays the answer."""
    proc = tldrs(repo, "read", "src/app.py")  # the test's process has no terminal
    assert proc.returncode == 0 and proc.stdout.startswith("     1\t")
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("tldrs: note: no session: pass --session-id")
    again = tldrs(repo, "read", "src/app.py")
    assert again.stdout == proc.stdout  # nothing remembered: the whole file again
    with_id = tldrs(repo, "read", "src/app.py", "--session-id", "s1")
    assert with_id.stderr == "" and with_id.stdout.startswith("[SKELETON] src/app.py")
    assert tldrs(repo, "read", "src/app.py", "--full").stderr == ""  # asked for the plain file: nothing to say


def test_several_symbols_and_a_word_no_symbol_has(make_repo):
    """`--symbol` given twice reads both in one answer; a name no symbol has that the
    file's text has (a settings key inside a body) reads the lines around where it
    occurs, said as such; a name neither has is named with its did-you-mean, the
    others read all the same. Real agents otherwise spent a call on each."""
    body = "".join(f"    step_{i} = app.value({i})\n" for i in range(20))
    source = (f"def configure(app):\n{body}    app.settings['session_store'] = 'cookie'\n{body}    return app\n\n\n"
              "def other(x):\n    return x\n")
    root = make_repo({"m.py": source})
    text = tldrs(root, "read", "m.py", "--session-id", "s", "--symbol", "session_store", check=True).stdout
    lines = text.splitlines()
    assert lines[0] == ("[SYMBOLS] m.py: 'session_store' is not a symbol of this file (a variable, a setting, a "
                        "key, or a name a change removed). Shown, as it is now: where session_store occurs "
                        "(lines 18-26).")
    assert lines[1:] == [f"{n:6d}\t{source.splitlines()[n - 1]}" for n in range(18, 27)]
    both = tldrs(root, "read", "m.py", "--session-id", "s", "--symbol", "nosuch", "--symbol", "other",
                 check=True).stdout.splitlines()
    assert both[0].startswith("[SYMBOLS] m.py: No symbol named 'nosuch' in m.py") and both[0].endswith(
        ". Shown, as it is now: other (lines 46-47).")
    assert both[1:] == ["    46\tdef other(x):", "    47\t    return x"]
    neither = tldrs(root, "read", "m.py", "--session-id", "s", "--symbol", "nosuch")
    assert neither.returncode != 0 and "no symbol named 'nosuch'" in neither.stderr.lower()
    # a near spelling is shown only when the text has no such word, and then it says so
    # (`hasIteratorFrom`, a const, was answered with the function `iteratorFrom`)
    near = tldrs(root, "read", "m.py", "--session-id", "s", "--symbol", "othr", check=True).stdout.splitlines()
    assert near[0] == ("[SYMBOLS] m.py: No symbol is named 'othr'; shown instead: other (the nearest spelling). "
                       "Shown, as it is now: other (lines 46-47).")
    spelled = make_repo({"i.ts": "const hasIteratorFrom =\n  typeof Iterator !== 'undefined'\n\n"
                                 "function iteratorFrom(x) {\n  if (hasIteratorFrom) {\n    return Iterator.from(x)\n"
                                 "  }\n  return x\n}\n"}, name="spelled")
    word = tldrs(spelled, "read", "i.ts", "--session-id", "s", "--symbol", "hasIteratorFrom", check=True).stdout
    assert word.splitlines()[0] == ("[SYMBOLS] i.ts: 'hasIteratorFrom' is not a symbol of this file (a variable, a "
                                    "setting, a key, or a name a change removed). Shown, as it is now: where "
                                    "hasIteratorFrom occurs (lines 1-9).")
    # a qualified name's last part counts inside the symbol its qualifier names, else on a
    # line naming the qualifier too (`Other.value` would show `app.value` lines: another
    # thing's value; `configure.session_store` is the key inside configure)
    qualified = tldrs(root, "read", "m.py", "--session-id", "s", "--symbol", "Other.value", "--symbol", "other",
                      check=True).stdout.splitlines()
    assert qualified[0].startswith("[SYMBOLS] m.py: No symbol named 'Other.value'") and qualified[0].endswith(
        ". Shown, as it is now: other (lines 46-47).")
    inside = tldrs(root, "read", "m.py", "--session-id", "s", "--symbol", "configure.session_store",
                   check=True).stdout.splitlines()
    assert inside[0].endswith("Shown, as it is now: where configure.session_store occurs (lines 18-26).")
    outside = tldrs(root, "read", "m.py", "--session-id", "s", "--symbol", "other.session_store")
    assert outside.returncode != 0 and "other.session_store" in outside.stderr
