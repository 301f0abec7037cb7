"""The sharded session store: a read touches only its own file's record; records
live, expire, are evicted and collected one by one (sessionstore.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from symbolpack.state.sessionstore import record_key
from symbolpack.state.store import OBJECT_GC_GRACE_SECONDS, QUARANTINE_TTL_SECONDS, Store

from conftest import session_dir, stored_files
from conftest import read_json, tldrs

TEXT = "".join(f"line {n} of a text file\n" for n in range(40))


@pytest.fixture
def repo(make_repo):
    return make_repo({f"f{i}.txt": TEXT.replace("text", f"text {i}") for i in range(6)})


def _record(root, rel: str, session: str = "t1"):
    return session_dir(root, session) / "files" / f"{record_key(rel)}.json"


def _identity(path):
    st = path.stat()
    return st.st_ino, st.st_mtime_ns, path.read_bytes()


def test_a_read_touches_only_its_own_record(repo):
    for i in range(6):
        read_json(repo, f"f{i}.txt")
    others = {i: _identity(_record(repo, f"f{i}.txt")) for i in range(1, 6)}
    # a record no read may open: opening it would move it aside as malformed
    _record(repo, "f5.txt").write_text("{not a record")
    garbage = _identity(_record(repo, "f5.txt"))
    f0 = repo / "f0.txt"
    f0.write_text(f0.read_text().replace("line 3 ", "line three "))
    assert read_json(repo, "f0.txt")["mode"] == "diff"  # an answer that rewrites f0's record
    assert read_json(repo, "f0.txt", "--offset", "2", "--limit", "3")["mode"] == "range"
    for i in range(1, 5):
        assert _identity(_record(repo, f"f{i}.txt")) == others[i], f"f{i}.txt's record was rewritten"
    assert _identity(_record(repo, "f5.txt")) == garbage  # never opened
    assert not list(_record(repo, "f5.txt").parent.glob("*.bad-*"))


def test_processes_reading_different_files_of_one_session_keep_every_record(repo):
    script = (
        "import sys\n"
        "from symbolpack.cli import main\n"
        "for _ in range(3):\n"
        "    for name in sys.argv[1:]:\n"
        "        assert main(['read', name, '--session-id', 'shared', '--format', 'json']) == 0\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "SYMBOLPACK_SESSION_ID"}
    halves = [["f0.txt", "f1.txt", "f2.txt"], ["f3.txt", "f4.txt", "f5.txt"]]
    procs = [subprocess.Popen([sys.executable, "-c", script, *names], cwd=repo, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for names in halves]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    assert set(stored_files(repo, "shared")) == {f"f{i}.txt" for i in range(6)}
    meta = json.loads((session_dir(repo, "shared") / "session.json").read_text())
    assert meta["stats"]["reads"] == {"full": 6, "unchanged": 12}  # disjoint files: no read met another's
    for i in range(6):
        assert read_json(repo, f"f{i}.txt", session="shared")["mode"] == "unchanged"


def test_the_lru_bound_holds_across_records(repo):
    env = {"SYMBOLPACK_MAX_ENTRIES": "3"}
    for i in range(5):
        tldrs(repo, "read", f"f{i}.txt", "--session-id", "t1", env=env, check=True)
        time.sleep(0.01)  # distinct write times: the order is the least recently written
    assert set(stored_files(repo, "t1")) == {"f2.txt", "f3.txt", "f4.txt"}
    again = tldrs(repo, "read", "f4.txt", "--session-id", "t1", "--format", "json", env=env, check=True)
    assert json.loads(again.stdout)["mode"] == "unchanged"
    evicted = tldrs(repo, "read", "f0.txt", "--session-id", "t1", "--format", "json", env=env, check=True)
    assert json.loads(evicted.stdout)["mode"] == "full"  # no record: a first read
    assert set(stored_files(repo, "t1")) == {"f3.txt", "f4.txt", "f0.txt"}  # f2 was the oldest write


def test_a_record_past_its_ttl_is_absent_on_access_and_collected(repo):
    for i in range(3):
        read_json(repo, f"f{i}.txt")
    for rel in ("f0.txt", "f1.txt"):
        record = json.loads(_record(repo, rel).read_text())
        record["touched"] = time.time() - 8 * 24 * 3600  # older than the 7-day TTL
        _record(repo, rel).write_text(json.dumps(record))
    assert read_json(repo, "f0.txt")["mode"] == "full"  # expired on access: read afresh
    assert read_json(repo, "f2.txt")["mode"] == "unchanged"
    Store(repo).gc()
    assert set(stored_files(repo, "t1")) == {"f0.txt", "f2.txt"}  # f1 expired and was collected


def test_gc_collects_orphan_shards(repo):
    read_json(repo, "f0.txt")
    read_json(repo, "f1.txt", session="gone")
    files = session_dir(repo, "t1") / "files"
    old = time.time() - QUARANTINE_TTL_SECONDS - 60
    temp = files / f".tmp-{record_key('f9.txt')}.json-1-2"  # a write killed before its rename
    temp.write_bytes(b"{")
    bad = files / f"{record_key('f8.txt')}.json.bad-1"
    bad.write_bytes(b"{")
    fresh_temp = files / ".tmp-x.json-1-3"  # may belong to a write under way
    fresh_temp.write_bytes(b"{")
    for p in (temp, bad):
        os.utime(p, (old, old))
    os.utime(fresh_temp, (time.time() - OBJECT_GC_GRACE_SECONDS / 2,) * 2)
    # a session whose document was lost, its only record long expired
    (session_dir(repo, "gone") / "session.json").unlink()
    record = json.loads(_record(repo, "f1.txt", "gone").read_text())
    record["touched"] = 1
    _record(repo, "f1.txt", "gone").write_text(json.dumps(record))
    Store(repo).gc()
    assert not temp.exists() and not bad.exists() and fresh_temp.exists()
    assert stored_files(repo, "gone") == {}
    assert read_json(repo, "f0.txt")["mode"] == "unchanged"


def test_a_cleared_session_leaves_no_shard(repo):
    read_json(repo, "f0.txt")
    read_json(repo, "f1.txt")
    proc = tldrs(repo, "session", "clear", "--session-id", "t1", check=True)
    assert proc.returncode == 0 and not session_dir(repo, "t1").exists()
    assert read_json(repo, "f0.txt")["mode"] == "full"
