"""`python -m symbolpack.integrations.claude NAME`: one hook run in this process (see `entry.py`)."""

from .entry import run_as_process

run_as_process(resident=False)
