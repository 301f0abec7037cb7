"""The render cache of `structure`: each file's JSON and text fragment cached under
everything it is a pure function of (content digest, repo-relative path, language,
query version, renderer version), so a warm run prints byte for byte what a cold one
does, and a rename, an edit or a renderer change is never answered by a stale entry."""

from __future__ import annotations

import json
import time

import pytest

import symbolpack.engine.index as index_module
import symbolpack.engine.outline as outline
import symbolpack.engine.rendercache as rendercache
import symbolpack.engine.statdigests as statdigests
from symbolpack.engine.index import Index, walk
from symbolpack.engine.outline import write_rendered_structure
from symbolpack.engine.rendercache import Renderer

from conftest import git
from conftest import tldrs

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "class Engine:\n    def run(self, x):\n        return x\n\n\ndef main():\n    return Engine().run(1)\n",
    "pkg/ünïcode.py": "def café(x):\n    '''naïve'''\n    return x\n",
    "src/lib.c": "static int add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2); }\n",
    "web/app.js": "export function hello(name) { return `hi ${name}`; }\nclass Box { open() {} }\n",
    "notes.txt": "just text\n",
    "secret_conf.py": "TOKEN = 'do-not-show'\n\ndef leak():\n    return TOKEN\n",
    ".env": "KEY=do-not-show\n",
}


@pytest.fixture
def young_files_trusted(monkeypatch):
    monkeypatch.setattr(statdigests, "_RACY_NS", 50_000_000)


def render_keys(state) -> list[str]:
    import diskcache

    with diskcache.Cache(str(state / "cache")) as cache:
        return [k for k in cache.iterkeys() if isinstance(k, str) and k.startswith("render:")]


def test_warm_structure_is_byte_identical_to_cold_and_uncached(make_repo, tmp_path):
    root = make_repo(FILES)
    (root / "blob.bin").write_bytes(b"\0\1\2")  # untracked, not ignored: listed, binary
    state = tmp_path / "state"
    env = {"SYMBOLPACK_DIR": str(state), "SYMBOLPACK_SENSITIVE": "secret_*.py"}
    for args in (("--format", "json"), ()):
        uncached = tldrs(root, "structure", ".", "--no-cache", *args, env=env, check=True).stdout
        cold = tldrs(root, "structure", ".", *args, env=env, check=True).stdout
        time.sleep(2.1)  # old enough for the stat digests: the warm run reads no file
        warm = tldrs(root, "structure", ".", *args, env=env, check=True).stdout
        again = tldrs(root, "structure", ".", *args, env=env, check=True).stdout
        assert cold == warm == again == uncached
        assert "do-not-show" not in cold and "leak" not in cold
    listed = json.loads(tldrs(root, "structure", ".", "--format", "json", env=env, check=True).stdout)["files"]
    assert {"path": "secret_conf.py", "language": None, "symbols": []} in listed
    keys = render_keys(state)
    assert {k.split(":")[1] for k in keys} == {"json", "text"}
    named = {k.rsplit(":", 1)[-1] for k in keys}
    assert "pkg/core.py" in named and "web/app.js" in named
    assert not any("secret" in k or ".env" in k or "notes.txt" in k or "blob.bin" in k for k in keys)


def rendered(root, fmt: str = "json", use_cache: bool = True) -> tuple[str, int]:
    """`structure`'s output of *root* through `Index.iter_rendered`, and the files read."""
    index = Index(root, use_cache=use_cache)
    try:
        items = list(index.iter_rendered(walk(root, root).files, Renderer(fmt)))
    finally:
        index.close()
    if fmt == "json":
        return "[" + ", ".join(f for _, f in items) + "]", index.files_read
    parts: list[str] = []
    write_rendered_structure(items, {}, parts.append)
    return "".join(parts), index.files_read


def test_a_warm_run_neither_reads_nor_binds_and_matches_the_symbols(make_repo, young_files_trusted, monkeypatch):
    root = make_repo(FILES)
    time.sleep(0.1)
    cold = {fmt: rendered(root, fmt)[0] for fmt in rendercache.FORMATS}
    time.sleep(0.1)

    def no_binding(*args):
        raise AssertionError("a cached fragment was bound again")

    with monkeypatch.context() as m:
        m.setattr(index_module, "_bind_packed", no_binding)
        for fmt in rendercache.FORMATS:
            warm, read = rendered(root, fmt)
            assert warm == cold[fmt] and read == 0
    index = Index(root, use_cache=False)
    files = index.files(walk(root, root).files)
    index.close()
    assert cold["json"] == "[" + ", ".join(json.dumps(f.to_json(), ensure_ascii=False) for f in files) + "]"
    assert cold["text"] == outline.format_structure(files, {})


def test_rename_edit_and_renderer_version_change_the_output(make_repo, young_files_trusted, monkeypatch):
    root = make_repo(FILES)
    time.sleep(0.1)
    for fmt in rendercache.FORMATS:
        rendered(root, fmt)
    before = rendered(root)[0]
    assert "pkg/core.py:python:Engine" in before

    git(root, "mv", "pkg/core.py", "pkg/engine.py")  # same bytes, another path
    time.sleep(0.1)
    renamed = {fmt: rendered(root, fmt)[0] for fmt in rendercache.FORMATS}
    assert renamed["json"] != before and "pkg/engine.py:python:Engine" in renamed["json"]
    assert "pkg/core.py" not in renamed["json"] and "pkg/core.py" not in renamed["text"]
    assert renamed == {fmt: rendered(root, fmt, use_cache=False)[0] for fmt in rendercache.FORMATS}

    (root / "pkg" / "engine.py").write_text(FILES["pkg/core.py"].replace("def run(", "def walk("))  # same size
    time.sleep(0.1)
    edited = {fmt: rendered(root, fmt)[0] for fmt in rendercache.FORMATS}
    assert "Engine.walk" in edited["json"] and "Engine.run" not in edited["json"]
    assert "def walk" in edited["text"] and "def run" not in edited["text"]
    assert edited == {fmt: rendered(root, fmt, use_cache=False)[0] for fmt in rendercache.FORMATS}

    # a renderer that changed: without a version bump its old fragments would be served
    original = outline.format_file
    monkeypatch.setattr(outline, "format_file", lambda fs: original(fs).upper())
    assert rendered(root, "text")[0] == edited["text"]  # stale: what the version is for
    monkeypatch.setattr(rendercache, "RENDER_VERSION", rendercache.RENDER_VERSION + 1)
    bumped = rendered(root, "text")[0]
    assert bumped != edited["text"] and "PKG/ENGINE.PY (PYTHON" in bumped
    assert bumped == rendered(root, "text", use_cache=False)[0] == rendered(root, "text")[0]
