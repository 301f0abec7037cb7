"""The streaming index: a warm run reads no unchanged file (stat digests), a file
rewritten behind an unchanged size and mtime is read again, answers are the same
cold, warm, without a cache and across batches, and `structure` streamed as it
parses prints exactly the JSON of the whole list."""

from __future__ import annotations

import json
import os
import time

import pytest

import symbolpack.engine.index as index_module
import symbolpack.engine.statdigests as statdigests
from symbolpack.engine.index import Index, walk

from conftest import tldrs


def module(n: int, name: str = "f") -> str:
    return "".join(f"def {name}{k}(a):\n    return a + {k}\n\n" for k in range(n))


@pytest.fixture
def young_files_trusted(monkeypatch):
    """Trust entries older than 50 ms (not 2 s), so a test need not wait; the test
    still waits past that so the kernel's coarse file clock ticks between writes."""
    monkeypatch.setattr(statdigests, "_RACY_NS", 50_000_000)


def symbols(files) -> dict[str, list[str]]:
    return {f.path: [s.qualname for s in f.symbols] for f in files}


def test_warm_index_reads_no_unchanged_file_and_rereads_a_rewritten_one(make_repo, young_files_trusted):
    root = make_repo({f"m{i}.py": module(3 + i) for i in range(6)} | {"notes.txt": "hello\n", "blob.bin": "\0x"})
    time.sleep(0.1)
    paths = walk(root, root).files
    cold = Index(root)
    first = cold.files(paths)
    cold.close()
    assert cold.files_read == 8
    warm = Index(root)
    again = warm.files(paths)
    warm.close()
    assert warm.files_read == 0 and again == first

    target = root / "m2.py"
    st = target.stat()
    text = target.read_text()
    rewritten = text.replace("def f0(", "def g0(")  # same size
    assert len(rewritten) == len(text)
    target.write_text(rewritten)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime put back: only ctime tells
    later = Index(root)
    now = later.files(paths)
    later.close()
    assert later.files_read == 1
    assert symbols(now)["m2.py"][0] == "g0" and symbols(now) != symbols(first)


def test_young_files_are_not_trusted_by_their_stat(make_repo):
    root = make_repo({"a.py": module(2)})
    paths = walk(root, root).files
    Index(root).files(paths)
    index = Index(root)
    index.files(paths)
    assert index.files_read == 1  # written just now: read and hashed again


def test_batches_cold_warm_and_uncached_agree(make_repo, monkeypatch, young_files_trusted):
    monkeypatch.setattr(index_module, "_BATCH_FILES", 7)  # many batches, a pool across them,
    monkeypatch.setattr(index_module, "_POOL_MIN_FILES", 2)  # one parsing while the next is read
    monkeypatch.setattr(index_module, "_POOL_MIN_BYTES", 0)
    root = make_repo({f"pkg/m{i}.py": module(20, f"f{i}_") for i in range(40)} | {".env": "SECRET=1\n"})
    time.sleep(0.1)
    paths = walk(root, root).files
    uncached = Index(root, use_cache=False, jobs=1).files(paths)
    cold = Index(root, jobs=2).files(paths)
    warm = Index(root, jobs=2).files(paths)
    assert uncached == cold == warm
    assert [f.path for f in warm] == sorted(f.path for f in warm)
    assert symbols(warm)[".env"] == [] and sum(len(f.symbols) for f in warm) == 40 * 20


def test_structure_streams_the_json_of_the_whole_list(make_repo):
    root = make_repo({"a.py": module(3), "b/c.py": module(2, "g"), "d.md": "# Title\n"})
    out = tldrs(root, "structure", ".", "--format", "json", check=True).stdout
    whole = json.loads(out)
    assert out == json.dumps(whole, ensure_ascii=False) + "\n"
    assert [f["path"] for f in whole["files"]] == ["a.py", "b/c.py", "d.md"]
    text = tldrs(root, "structure", check=True)
    assert text.stdout.endswith("3 files, 5 symbols; 1 files without symbols\n")
    assert text.stderr == ""  # not a terminal: no progress bar


def test_indexed_symbols_are_the_parsed_records_bound_to_their_path(make_repo):
    text = "class A:\n    def m(self):\n        return 1\n\n    class B:\n        def m(self):\n            pass\n\n" \
           "def m():\n    return 2\n\ndef m():\n    return 3\n"
    root = make_repo({"pkg/a.py": text})
    from symbolpack.engine.symbols import bind, extract

    want = bind("pkg/a.py", "python", extract(text.encode(), "python")[0])
    for index in (Index(root), Index(root), Index(root, use_cache=False)):  # cold, warm, uncached
        (got,) = index.files(walk(root, root).files)
        assert list(got.symbols) == want
    assert [s.parent for s in want if s.parent] == ["pkg/a.py:python:A", "pkg/a.py:python:A", "pkg/a.py:python:A.B"]
