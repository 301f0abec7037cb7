"""The session store: wrong-shaped documents, intents and commits, collection.

Every fault here is met by one warning, plain reads, and a store that keeps
working afterwards (the reads issue, items 7, 8 and 14)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from symbolpack.reads.agentcopy import AgentCopy
from symbolpack.api.operations import Workspace, read_file
from symbolpack.state.sessionstore import record_key
from symbolpack.state.store import AUTO_GC_INTERVAL_SECONDS, COMMIT_MARKER_TTL_SECONDS, Store

from conftest import read_json, session_dir, stored_files, tldrs


@pytest.fixture
def repo(app_repo):
    return app_repo


def _meta(root) -> Path:
    return session_dir(root, "t1") / "session.json"


def _record(root, rel: str) -> Path:
    return session_dir(root, "t1") / "files" / f"{record_key(rel)}.json"


@pytest.mark.parametrize("damage", [
    lambda d: d.update(stats={}),
    lambda d: d.update(touched="yesterday"),
    lambda d: d["stats"].update(reads={"full": "1"}),
    lambda d: d.update(id="someone-else"),
    lambda d: d.update(seq="1"),
], ids=["stats-empty", "touched-string", "reads-string", "id", "seq-string"])
def test_a_wrong_shaped_session_document_is_set_aside_once_and_reads_go_on(repo, damage):
    (repo / "long.txt").write_text("".join(f"line {n} of a longer text file\n" for n in range(60)))
    read_json(repo, "src/app.py")
    read_json(repo, "long.txt")
    doc = json.loads(_meta(repo).read_text())
    damage(doc)
    _meta(repo).write_text(json.dumps(doc))
    proc = tldrs(repo, "read", "src/app.py", "--session-id", "t1", "--format", "json", check=True)
    assert json.loads(proc.stdout)["mode"] == "full"  # plain: the session's own fields are in doubt
    assert proc.stderr.count("warning") == 1 and "moved aside" in proc.stderr and "Traceback" not in proc.stderr
    kept = list(session_dir(repo, "t1").glob("session.json.bad-*"))
    assert len(kept) == 1  # quarantined for a human to look at
    again = tldrs(repo, "read", "src/app.py", "--session-id", "t1", "--format", "json", check=True)
    assert json.loads(again.stdout)["mode"] == "unchanged" and again.stderr == ""  # working again, warned once
    assert read_json(repo, "long.txt")["mode"] == "unchanged"  # the file records stood


@pytest.mark.parametrize("copy", [["abc"], [5, [[1, 2, 0, None]], [], []], [10, [[3, 1, 0, None]], ["a" * 64], []],
                                  [10, [[1, 2, 0, None]], ["a" * 64], [["i", 4, 1]]]],
                         ids=["list-of-string", "version-index", "reversed-run", "reversed-pending"])
def test_a_malformed_file_record_is_set_aside_alone_and_read_plainly(repo, copy):
    (repo / "long.txt").write_text("".join(f"line {n} of a longer text file\n" for n in range(60)))
    read_json(repo, "src/app.py")
    read_json(repo, "long.txt")
    record = json.loads(_record(repo, "src/app.py").read_text())
    record["copy"] = copy
    _record(repo, "src/app.py").write_text(json.dumps(record))
    proc = tldrs(repo, "read", "src/app.py", "--session-id", "t1", "--format", "json", check=True)
    assert json.loads(proc.stdout)["mode"] == "full"
    assert "src/app.py was malformed" in proc.stderr and proc.stderr.count("\n") == 1
    assert len(list(_record(repo, "src/app.py").parent.glob("*.bad-*"))) == 1  # that record, kept aside
    assert read_json(repo, "long.txt")["mode"] == "unchanged"  # the rest of the session is intact
    assert read_json(repo, "src/app.py")["mode"] == "unchanged"


@pytest.mark.parametrize("damage", [
    lambda r: r.update(touched="x"),
    lambda r: r.update(path="elsewhere.py"),
    lambda r: r.pop("copy"),
    lambda r: "{not json",
], ids=["touched-string", "other-path", "no-copy", "not-json"])
def test_a_record_that_does_not_fit_loses_no_other_record(repo, damage):
    (repo / "long.txt").write_text("".join(f"line {n} of a longer text file\n" for n in range(60)))
    read_json(repo, "src/app.py")
    read_json(repo, "long.txt")
    record = json.loads(_record(repo, "long.txt").read_text())
    changed = damage(record)
    _record(repo, "long.txt").write_text(changed if isinstance(changed, str) else json.dumps(record))
    proc = tldrs(repo, "read", "long.txt", "--session-id", "t1", "--format", "json", check=True)
    assert json.loads(proc.stdout)["mode"] == "full" and proc.stderr.count("warning") == 1
    assert "long.txt was malformed" in proc.stderr and "Traceback" not in proc.stderr
    assert read_json(repo, "src/app.py")["mode"] == "unchanged"
    assert read_json(repo, "long.txt")["mode"] == "unchanged"


def _legacy_doc(root) -> dict:
    """A format-2 session (one document holding every file), as the previous version wrote it."""
    (root / "long.txt").write_text("".join(f"line {n} of a longer text file\n" for n in range(60)))
    read_json(root, "src/app.py")
    read_json(root, "long.txt")
    records = stored_files(root, "t1")
    meta = json.loads(_meta(root).read_text())
    shutil.rmtree(session_dir(root, "t1"))
    return {**meta, "v": 2, "files": {p: {"copy": r["copy"], "touched": r["touched"]} for p, r in records.items()},
            "drill_ins": [{"path": "src/app.py", "symbol": "f", "at": 1.0}]}


def test_a_single_document_session_is_carried_over(repo):
    doc = _legacy_doc(repo)
    (repo / ".symbolpack" / "sessions" / "t1.json").write_text(json.dumps(doc))
    proc = tldrs(repo, "read", "src/app.py", "--session-id", "t1", "--format", "json", check=True)
    assert json.loads(proc.stdout)["mode"] == "unchanged" and proc.stderr == ""
    assert read_json(repo, "long.txt")["mode"] == "unchanged"
    assert not (repo / ".symbolpack" / "sessions" / "t1.json").exists()
    assert set(stored_files(repo, "t1")) == {"src/app.py", "long.txt"}
    status = json.loads(tldrs(repo, "session", "status", "--session-id", "t1", "--json", check=True).stdout)
    assert status["reads"] == 4 and status["recent_drill_ins"][0]["symbol"] == "f"


@pytest.mark.parametrize("damage", [
    lambda d: d.update(files=["src/app.py"]),
    lambda d: d["files"]["src/app.py"].update(touched="x"),
    lambda d: d.update(drill_ins="none"),
], ids=["files-list", "entry-touched", "drill-ins-string"])
def test_a_wrong_shaped_single_document_is_set_aside_once(repo, damage):
    doc = _legacy_doc(repo)
    damage(doc)
    (repo / ".symbolpack" / "sessions" / "t1.json").write_text(json.dumps(doc))
    proc = tldrs(repo, "read", "src/app.py", "--session-id", "t1", "--format", "json", check=True)
    assert json.loads(proc.stdout)["mode"] == "full"
    assert proc.stderr.count("warning") == 1 and "moved aside" in proc.stderr
    assert len(list((repo / ".symbolpack" / "sessions").glob("t1.json.bad-*"))) == 1
    again = tldrs(repo, "read", "src/app.py", "--session-id", "t1", "--format", "json", check=True)
    assert json.loads(again.stdout)["mode"] == "unchanged" and again.stderr == ""


def test_an_earlier_format_starts_over_quietly(repo):
    read_json(repo, "src/app.py")
    (repo / ".symbolpack" / "sessions" / "t1.json").write_text(json.dumps({"v": 1, "id": "t1", "files": {}, "stats": {}}))
    proc = tldrs(repo, "read", "src/app.py", "--session-id", "t1", "--format", "json", check=True)
    assert json.loads(proc.stdout)["mode"] == "full" and proc.stderr == ""


def test_an_uncommitted_answer_is_pending_until_its_commit(repo):
    (repo / "long.txt").write_text("".join(f"line {n} of a longer text file\n" for n in range(60)))
    ws = Workspace(repo)
    try:
        first = read_file(ws, repo / "long.txt", "t1", confirm=False)
        assert first.response["mode"] == "full"
        with ws.store.session("t1", write=False) as session:
            assert [p[1:] for p in session.copy("long.txt").pending] == [(1, 60)]  # recorded, not yet trusted
        again = read_file(ws, repo / "long.txt", "t1", confirm=False)
        assert again.response["mode"] == "full" and again.fallback == "pending"  # did the first answer arrive?
        again.commit()
        assert read_file(ws, repo / "long.txt", "t1").response["mode"] == "unchanged"
    finally:
        ws.close()


def test_gc_collects_old_markers_quarantine_and_orphan_locks(repo):
    read_json(repo, "src/app.py")
    state = repo / ".symbolpack"
    old = time.time() - COMMIT_MARKER_TTL_SECONDS * 8
    marker = state / "commits" / "stale-intent"
    marker.write_bytes(b"")
    orphan = state / "sessions" / "gone.lock"
    orphan.write_bytes(b"")
    bad = state / "sessions" / "t1" / "session.json.bad-1"
    bad.write_bytes(b"{}")
    for p in (marker, orphan, bad):
        os.utime(p, (old, old))
    Store(repo).gc()
    assert not marker.exists() and not orphan.exists() and not bad.exists()
    assert (state / "sessions" / "t1.lock").exists() and read_json(repo, "src/app.py")["mode"] == "unchanged"


def test_collection_runs_by_itself_now_and_then(repo):
    read_json(repo, "src/app.py")
    state = repo / ".symbolpack"
    marker = state / "commits" / "stale-intent"
    marker.write_bytes(b"")
    old = time.time() - COMMIT_MARKER_TTL_SECONDS * 2
    os.utime(marker, (old, old))
    stamp = state / "gc-stamp"
    stamp.write_bytes(b"")  # collected just now: nothing happens on the next read
    read_json(repo, "src/app.py")
    assert marker.exists()
    past = time.time() - AUTO_GC_INTERVAL_SECONDS - 10
    os.utime(stamp, (past, past))
    read_json(repo, "src/app.py")  # the interval passed: this read collects, after answering
    assert not marker.exists()


def test_copy_round_trips_through_json():
    copy = AgentCopy(12, ((1, 4, "a" * 64, None), (5, 9, "b" * 64, "m.py:python:f"), (10, 12, "a" * 64, None)),
                     (("intent-1", 3, 7),))
    assert AgentCopy.from_json(json.loads(json.dumps(copy.to_json()))) == copy


def test_commit_markers_of_settled_reads_do_not_pile_up(repo):
    long = repo / "long.txt"
    for k in range(5):  # each read changes the copy, so each leaves an intent and a marker
        long.write_text("".join(f"line {n} of version {k}\n" for n in range(60)))
        read_json(repo, "long.txt")
    assert len(list((repo / ".symbolpack" / "commits").iterdir())) == 1  # only the latest, not yet settled


def _names_file(root: Path, data: bytes) -> Path:
    sha = hashlib.sha256(data).hexdigest()
    return root / ".symbolpack" / "objects" / sha[:2] / (sha[2:] + ".names")


def _plant(names: Path, extra: bytes, version: bytes | None = None, checksum: bytes | None = None) -> None:
    """Rewrite a `.names` file with one more name (and, to damage it, another parser
    version or a wrong checksum)."""
    head, body = names.read_bytes().split(b"\n", 1)
    body += b"\n" + extra
    parser_version = version or head.split(b" ")[0]
    names.write_bytes(parser_version + b" " + (checksum or hashlib.sha256(body).hexdigest().encode()) + b"\n" + body)


@pytest.mark.parametrize("damage", [None, "version", "checksum"])
def test_a_re_read_names_removed_symbols_from_the_names_kept_beside_the_version(app_repo, damage):
    """A version a read parsed keeps its symbol names beside its object, so the next
    re-read names what was removed without parsing the old text. A name planted in
    that file shows it is what the re-read used; a file from another parser version
    or failing its checksum is ignored and the old text is parsed instead."""
    ws = Workspace(app_repo)
    app = app_repo / "src" / "app.py"
    before = app.read_bytes()
    assert read_file(ws, app, "t1").response["mode"] == "skeleton"
    names = _names_file(app_repo, before)
    kept = set(names.read_bytes().split(b"\n", 1)[1].decode().split("\n"))
    assert kept == {s.qualname for s in ws.symbols_of("src/app.py", before) or ()} == {f"f{k}" for k in range(5)}
    _plant(names, b"planted", version=b"0" * 16 if damage == "version" else None,
           checksum=b"0" * 64 if damage == "checksum" else None)
    lines = before.decode().splitlines()
    del lines[2:22]  # f0 and the blank line after it
    app.write_text("\n".join(lines) + "\n")
    out = read_file(ws, app, "t1").response
    assert out["mode"] == "delta"
    assert ("Removed: f0, planted." if damage is None else "Removed: f0.") in out["text"]
