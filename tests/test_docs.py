"""The project's documents are its own: they point only inside the repository."""

from __future__ import annotations

import re
import subprocess
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
