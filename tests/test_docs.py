"""The project's documents are its own (they point only inside the repository) and true
(the README's main job runs as written)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_file_points_outside_the_repository():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    outside = re.compile(r"\.\./shared|/work/shared")
    offenders = [p for p in tracked if p != "tests/test_docs.py" and (ROOT / p).is_file()
                 and outside.search((ROOT / p).read_text(errors="replace"))]
    assert offenders == []


def test_the_protocol_document_is_linked_from_readme_and_architecture():
    assert (ROOT / "docs" / "PROTOCOL.md").is_file()
    for doc in ("README.md", "ARCHITECTURE.md"):
        assert "](docs/PROTOCOL.md)" in (ROOT / doc).read_text()


def test_the_readmes_main_job_runs_in_a_fresh_clone_and_the_oracle_holds(tmp_path):
    """The first command a newcomer runs (README, "Two commands"): the eval on this
    repository's own history, in the clone the README has just made."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Two commands", 1)[1]
    first = re.search(r"```sh\n(.*?)\n```", section, re.S).group(1)
    job = shlex.split(first.split("&&")[-1].strip())
    assert job[:2] == [".venv/bin/tldrs", "eval"], first
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)
    proc = subprocess.run([sys.executable, "-m", "symbolpack.cli", *job[1:]], cwd=clone, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "oracle: every response held (0 failures)" in proc.stdout, proc.stdout[-2000:]


def test_what_your_agent_sees_is_what_the_engine_answers():
    """README's "What your agent sees" is generated from real answers
    (`python -m symbolpack.evaluation.showcase`); it must still be what they are."""
    from symbolpack.evaluation.showcase import END, START, section

    readme = (ROOT / "README.md").read_text()
    assert readme.count(START) == 1 and readme.count(END) == 1
    shown = readme[readme.index(START):readme.index(END) + len(END)]
    assert shown == section(), "regenerate it: python -m symbolpack.evaluation.showcase"


def test_the_readme_s_table_of_contents_points_at_its_sections():
    readme = (ROOT / "README.md").read_text()
    contents = readme[readme.index("**Contents:**"):].split("\n\n", 1)[0]
    anchors = re.findall(r"\]\(#([^)]+)\)", contents)
    headings = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
                for h in re.findall(r"^#{2,3} (.+)$", readme, re.M)}
    assert len(anchors) >= 10 and [a for a in anchors if a not in headings] == []
