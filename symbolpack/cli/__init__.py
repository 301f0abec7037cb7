"""The command line, `tldrs` (alias `symbolpack`): `main.py` is the argparse
front end, `packs.py` wires `context` and `diff-context`; the other commands
register from `integrations.commands` and `evaluation.command`.

`python -m symbolpack.cli` runs it (what `tldrs install` writes when `tldrs` is
not on PATH).
"""

from .main import main

__all__ = ["main"]
