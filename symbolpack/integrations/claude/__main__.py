"""`python -m symbolpack.integrations.claude NAME`: one hook run (see `entry.py`)."""

from .entry import run_as_process

run_as_process()
