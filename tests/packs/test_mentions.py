"""Which files mention a name: git grep's candidates, confirmed in-process, must give
exactly what reading every file gives (a copy of the tree outside git), for tracked,
untracked and ignored files, names with `$`, definitions only (`uses_only`), a commit
(GitTreeSnapshot) and bytes a caller seeded."""

from __future__ import annotations

import shutil

from symbolpack.packs.mentions import NameSearch
from symbolpack.state.snapshot import GitTreeSnapshot, WorkTreeSnapshot

from conftest import git

FILES = {
    "a.py": "def checkout(cart):\n    return total(cart)\n",
    "b.py": "from a import checkout\n\ncheckout([])\n",
    "c.py": "def total(x):\n    return x  # checkout_all is another word\n",
    "d.js": "const $cart = 1;\nfunction total() { return $cart; }\n",
    "notes.txt": "checkout total\n",  # no parser: never a candidate
    ".gitignore": "ignored.py\n",
}
NAMES = ["checkout", "total", "$cart", "cart", "missing", "checkout_all"]


def test_git_candidates_give_what_reading_every_file_gives(make_repo, tmp_path):
    root = make_repo(FILES)
    (root / "untracked.py").write_text("checkout()\n")
    (root / "ignored.py").write_text("checkout()\n")
    plain = tmp_path / "plain"  # the same tree outside git: every file read
    shutil.copytree(root, plain, ignore=shutil.ignore_patterns(".git", "ignored.py"))
    for uses_only in (False, True):
        for names in ([n] for n in NAMES):
            via_git = NameSearch(WorkTreeSnapshot(root)).files(names, uses_only)
            assert via_git == NameSearch(WorkTreeSnapshot(plain)).files(names, uses_only), (names, uses_only)
    assert NameSearch(WorkTreeSnapshot(root)).files(["checkout"]) == ["a.py", "b.py", "untracked.py"]
    assert NameSearch(WorkTreeSnapshot(root)).files(["checkout"], uses_only=True) == ["b.py", "untracked.py"]
    assert NameSearch(WorkTreeSnapshot(root)).files(["$cart"]) == ["d.js"]


def test_a_commit_is_searched_as_committed_and_seeded_bytes_count(make_repo):
    root = make_repo(FILES)
    head = git(root, "rev-parse", "HEAD").strip()
    (root / "c.py").write_text("def total(x):\n    return checkout(x)\n")  # not committed
    assert NameSearch(GitTreeSnapshot(root, head)).files(["checkout"]) == ["a.py", "b.py"]
    assert NameSearch(WorkTreeSnapshot(root)).files(["checkout"]) == ["a.py", "b.py", "c.py"]
    snap = WorkTreeSnapshot(root)
    snap.seed("a.py", b"def total():\n    pass\n")  # what the caller read is the truth
    snap.seed("d.js", b"checkout();\n")
    assert NameSearch(snap).files(["checkout"]) == ["b.py", "c.py", "d.js"]
