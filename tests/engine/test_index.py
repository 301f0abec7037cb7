"""The repository walk, the parse cache and the engine commands (structure, extract, search)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from symbolpack.engine.index import Index, walk

from conftest import tldrs

PY = "def alpha():\n    return beta()\n\n\ndef beta():\n    return 1\n"


def rels(result, root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in result.files]


def test_git_walk_lists_tracked_and_untracked_but_not_ignored(make_repo):
    root = make_repo({"a.py": PY, ".gitignore": "build/\n*.log\n"})
    (root / "new.py").write_text(PY)
    (root / "build").mkdir()
    (root / "build" / "gen.py").write_text(PY)
    (root / "x.log").write_text("noise\n")
    (root / ".symbolpackignore").write_text("new.py\n")
    result = walk(root, root)
    assert rels(result, root) == [".gitignore", ".symbolpackignore", "a.py"]
    assert result.skipped == {"symbolpackignore": 1}


def test_plain_walk_honours_gitignore_and_skips_large_files(tmp_path):
    root = tmp_path / "plain"
    (root / "pkg" / "out").mkdir(parents=True)
    (root / "pkg" / "m.py").write_text(PY)
    (root / "pkg" / "out" / "skip.py").write_text(PY)
    (root / "pkg" / ".gitignore").write_text("out/\n")
    (root / "big.txt").write_bytes(b"x" * (3 * 1024 * 1024))
    result = walk(root, root)
    assert rels(result, root) == ["pkg/.gitignore", "pkg/m.py"]
    assert result.skipped == {"too large": 1}


def test_parse_cache_is_keyed_by_content_and_survives_corruption(make_repo, capsys):
    root = make_repo({"a.py": PY})
    index = Index(root)
    first = index.file(root / "a.py")
    index.close()
    assert [s.qualname for s in first.symbols] == ["alpha", "beta"]
    cache_dir = root / ".symbolpack" / "cache"
    for db in cache_dir.glob("cache.db*"):
        db.write_bytes(b"this is not sqlite")
    index = Index(root)
    again = index.file(root / "a.py")
    index.close()
    assert again.symbols == first.symbols
    assert "rebuilding" in capsys.readouterr().err
    # same bytes under another name: same records, ids bound to the new path
    (root / "b.py").write_text(PY)
    other = Index(root).file(root / "b.py")
    assert [s.id for s in other.symbols] == ["b.py:python:alpha", "b.py:python:beta"]
    assert [s.etag for s in other.symbols] == [s.etag for s in first.symbols]


def test_pool_and_serial_parsing_agree(make_repo):
    files = {f"pkg/m{i}.py": PY * 30 + f"\n\ndef only_{i}():\n    pass\n" for i in range(30)}
    root = make_repo(files)
    serial = Index(root, use_cache=False, jobs=1).files(walk(root, root).files)
    pooled = Index(root, use_cache=False, jobs=2).files(walk(root, root).files)
    assert [f.symbols for f in serial] == [f.symbols for f in pooled]
    assert sum(len(f.symbols) for f in serial) == 30 * 61


def test_structure_and_extract_json_follow_the_protocol(make_repo):
    root = make_repo({"src/a.py": PY, "README.md": "# hi\n", "data.bin": "\0\0"})
    out = json.loads(tldrs(root, "structure", ".", "--format", "json", check=True).stdout)
    assert out["v"] == 1
    by_path = {f["path"]: f for f in out["files"]}
    assert set(by_path) == {"src/a.py", "README.md", "data.bin"}
    alpha = by_path["src/a.py"]["symbols"][0]
    assert alpha == {"id": "src/a.py:python:alpha", "name": "alpha", "qualname": "alpha", "kind": "function",
                     "parent": None, "signature": "def alpha():", "lines": [1, 2], "body": [2, 2],
                     "etag": alpha["etag"]}
    assert by_path["README.md"]["symbols"] == []
    one = json.loads(tldrs(root, "extract", "src/a.py", "--format", "json", check=True).stdout)
    assert one["language"] == "python" and [s["qualname"] for s in one["symbols"]] == ["alpha", "beta"]
    text = tldrs(root, "structure", check=True).stdout
    assert "src/a.py (python, 2 symbols)" in text and "def alpha():" in text


def test_search_ranks_and_suggests(make_repo):
    root = make_repo({"a.py": PY})
    hit = tldrs(root, "search", "alpa", check=True).stdout
    assert hit.startswith("a.py:1-2  function alpha")
    miss = tldrs(root, "search", "zzzzqqqq")
    assert miss.returncode == 1 and "no symbol named 'zzzzqqqq'" in miss.stderr


def test_version_help_and_errors_are_clean(tmp_path):
    out = subprocess.run([sys.executable, "-m", "symbolpack.cli", "--version"], capture_output=True, text=True)
    assert out.stdout.startswith("symbolpack ")
    help_text = subprocess.run([sys.executable, "-m", "symbolpack.cli", "--help"], capture_output=True,
                               text=True).stdout
    for command in ("structure", "extract", "search", "read", "session"):
        assert command in help_text
    bad = tldrs(tmp_path, "extract", "missing.py")
    assert bad.returncode == 1 and bad.stderr.strip() == "tldrs: error: no such file: missing.py"
    usage = tldrs(tmp_path, "read")
    assert usage.returncode == 2 and len(usage.stderr.strip().splitlines()) == 1


def test_public_api_names_resolve():
    import symbolpack

    for name in symbolpack.__all__:
        assert getattr(symbolpack, name) is not None, name


def test_a_repeated_name_resolves_by_its_local_id():
    from symbolpack.engine.lookup import resolve
    from symbolpack.engine.symbols import bind, parse_bytes

    records, _, _ = parse_bytes(b"def f():\n    return 1\n\n\ndef f():\n    return 2\n", "python")
    symbols = bind("m.py", "python", records)
    assert resolve("f#2", symbols).lines == (5, 6)
    assert resolve("m.py:python:f#2", symbols).lines == (5, 6)
